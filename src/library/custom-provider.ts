import { isRecord } from '../common/is-record';
import { type DecisionError, System1ProviderError } from '../decisions/errors/decision-error';
import { System1InputError } from '../decisions/errors/input-error';
import type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  System1Provider,
} from '../decisions/registry/provider.interface';
import { capabilityRefusal, type QuestionCapabilities } from '../decisions/questions/question-capabilities';
import { type ImageMediaType, QUESTION_TYPES, type QuestionType } from '../decisions/questions/question.types';
import {
  type ChoiceAsk,
  type ChoiceState,
  choiceQuestionCapabilities,
  evaluateByPicks,
} from '../providers/choice/choice-provider';

/** An engine that only picks among options, given as one object: asked typed questions as choices. */
export interface PickingProvider {
  capabilities(): ProviderCapabilities;
  /** One of `ask.options`, with its confidence (and per-option probabilities when the engine has them). */
  pick(ask: ChoiceAsk, state: ChoiceState, context: AttemptContext): Promise<unknown>;
  health?(context: AttemptContext): Promise<HealthProbeResult>;
}

/**
 * An engine an application registers at run time (`system1.registerProvider(name, engine)`): the provider
 * interface itself (`evaluate`), a `pick` over options for an engine that only chooses, or a provider
 * written for dsh-system1 (`describe` and `evaluate(request, signal)`). Honour
 * `context.signal`: it aborts at the attempt's timeout, when the caller cancels, and when the registration
 * is disposed.
 */
export type CustomProvider = System1Provider | PickingProvider | DshProvider;

export function asProvider(name: string, engine: CustomProvider): System1Provider {
  const shape = 'must implement capabilities() and evaluate() or pick(), or describe() and evaluate()';
  let kind: 'dsh' | 'evaluate' | 'pick' | undefined;
  let health = false;
  try {
    kind = kindOfEngine(engine);
    health = kind === 'pick' && typeof (engine as PickingProvider).health === 'function';
  } catch {
    // A Proxy or getter that throws: its own text is not ours to show.
    throw new System1InputError(JSON.stringify(name), `${shape} (reading them threw)`);
  }
  if (kind === undefined) throw new System1InputError(JSON.stringify(name), shape);
  if (kind === 'dsh') return fromDsh(name, engine as DshProvider);
  if (kind === 'evaluate') return engine as System1Provider;
  const picking = engine as PickingProvider;
  return {
    capabilities: () => {
      const facts = picking.capabilities();
      return { ...facts, questions: choiceQuestionCapabilities(facts) };
    },
    evaluate: (request, context) =>
      evaluateByPicks(request, context, (ask, state) => picking.pick(ask, state, context)),
    ...(health && { health: (context: AttemptContext) => picking.health!(context) }),
  };
}

/**
 * A provider written for dsh-system1: `describe(model, signal)` says what a model takes, `evaluate(request,
 * signal)` answers with dsh-system1's typed answers (`{type, value, ...}`, or `{status, answer | error}`).
 */
export interface DshProvider {
  describe(model: string | undefined, signal: AbortSignal): Promise<DshCapabilities> | DshCapabilities;
  evaluate(
    request: EvaluateRequest,
    signal: AbortSignal,
  ): Promise<{
    answers: Record<string, unknown>;
    model?: string;
    usage?: EvaluateReply['usage'];
    approximate?: boolean;
    degraded?: boolean;
  }>;
}

/** dsh-system1's capability names (camelCase); a limit left out is one the engine does not state. */
export interface DshCapabilities {
  types?: string[];
  questionTypes?: string[];
  maxQuestions?: number;
  maxOptions?: number;
  maxCandidates?: number;
  maxTotalOptions?: number;
  maxLevels?: number;
  images?: { mediaTypes: ImageMediaType[]; maxCount: number; maxBytes?: number };
  longContext?: { maxTokens: number };
}

/** Which of the three shapes an engine has, from its methods; undefined for none. */
function kindOfEngine(engine: CustomProvider): 'dsh' | 'evaluate' | 'pick' | undefined {
  const candidate = engine as Partial<System1Provider & PickingProvider & DshProvider> | null | undefined;
  const has = (method: 'capabilities' | 'evaluate' | 'pick' | 'describe') => typeof candidate?.[method] === 'function';
  if (has('describe') && has('evaluate') && !has('capabilities')) return 'dsh';
  if (!has('capabilities')) return undefined;
  if (has('evaluate')) return 'evaluate';
  return has('pick') ? 'pick' : undefined;
}

/** A dsh-system1 provider behind our interface: its model is described at each call, and refused before sending. */
function fromDsh(name: string, engine: DshProvider): System1Provider {
  return {
    // What it takes depends on the model of the call: asked of describe() at each call, below.
    capabilities: () => ({ batch: true, probabilities: true, questions: { types: [...QUESTION_TYPES] } }),
    evaluate: async (request, context) => {
      const described = await engine.describe(request.model, context.signal);
      const refusal = capabilityRefusal(name, request, fromDshCapabilities(described));
      if (refusal) throw new System1ProviderError(refusal.code, refusal.message);
      const reply = await engine.evaluate(request, context.signal);
      const answers: Record<string, unknown> = {};
      const errors: Record<string, DecisionError> = {};
      for (const [id, answer] of Object.entries(isRecord(reply?.answers) ? reply.answers : {})) {
        if (isRecord(answer) && answer.status === 'error' && isRecord(answer.error))
          errors[id] = answer.error as unknown as DecisionError;
        else answers[id] = wireShape(isRecord(answer) && answer.status === 'ok' ? answer.answer : answer);
      }
      return { ...reply, answers, ...(Object.keys(errors).length > 0 && { errors }) };
    },
  };
}

function fromDshCapabilities(described: DshCapabilities | undefined): QuestionCapabilities {
  const d = described ?? {};
  return {
    types: (d.types ?? d.questionTypes ?? [...QUESTION_TYPES]).filter((type): type is QuestionType =>
      (QUESTION_TYPES as readonly string[]).includes(type),
    ),
    ...(d.maxQuestions !== undefined && { max_questions: d.maxQuestions }),
    ...((d.maxOptions ?? d.maxCandidates) !== undefined && { max_options: d.maxOptions ?? d.maxCandidates }),
    ...(d.maxTotalOptions !== undefined && { max_total_options: d.maxTotalOptions }),
    ...(d.maxLevels !== undefined && { max_levels: d.maxLevels }),
    ...(d.images && {
      images: {
        media_types: d.images.mediaTypes,
        max_count: d.images.maxCount,
        ...(d.images.maxBytes !== undefined && { max_bytes: d.images.maxBytes }),
      },
    }),
    ...(d.longContext && { long_context: { max_tokens: d.longContext.maxTokens } }),
  };
}

/** dsh-system1's typed answer in the System One wire shape the pipeline reads; anything else as it came. */
function wireShape(answer: unknown): unknown {
  if (!isRecord(answer)) return answer;
  switch (answer.type) {
    case 'choice':
      return 'value' in answer && !('choice' in answer)
        ? { type: 'choice', choice: answer.value, probabilities: answer.probabilities }
        : answer;
    case 'noul':
      return 'probabilityTrue' in answer && !('noul' in answer)
        ? { type: 'noul', noul: answer.probabilityTrue }
        : answer;
    case 'score':
      return Array.isArray(answer.distribution) && !('probabilities' in answer)
        ? {
            type: 'score',
            score: answer.value,
            probabilities: Object.fromEntries(answer.distribution.map((p, level) => [String(level), p])),
          }
        : answer;
    default:
      return answer;
  }
}
