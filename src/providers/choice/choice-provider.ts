import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { DecisionErrorCode, type DecisionError } from '../../decisions/errors/decision-error';
import { isProbability } from '../../decisions/pipeline/distribution';
import { kindOf } from '../../common/is-record';
import type { QuestionCapabilities } from '../../decisions/questions/question-capabilities';
import { isBare, noulText, render } from '../../decisions/pipeline/question-text';
import type { Question } from '../../decisions/questions/question.types';
import type {
  AttemptContext,
  EvaluateReply,
  EvaluateRequest,
  HealthProbeResult,
  ProviderCapabilities,
  System1Provider,
} from '../../decisions/registry/provider.interface';

/** One question as a choice-only engine sees it: text and the option labels to pick from. */
export interface ChoiceAsk {
  /** Unique within the request; the answer is keyed by it. */
  id: string;
  text: string;
  options: string[];
  /** Asked as yes/no: the options are `yes` and `no`. */
  yesNo: boolean;
}

/** The state as a choice engine takes it: an object, or nothing when the caller gave no context. */
export type ChoiceState = Record<string, unknown> | undefined;

/**
 * What a choice engine answers per question:
 * - a pick: `decision` is one of the options, `confidence` in [0, 1], optional per-option `probabilities`;
 * - an abstention: `{ abstain: true, rationale }` ("reason it through yourself"; never a fallback).
 */
export type ChoicePick =
  | { decision: string; confidence: number; probabilities?: Record<string, number> | null; rationale?: string }
  | { abstain: true; rationale?: string };

/** The facts of a choice engine; the typed questions it takes follow from them. */
export interface ChoiceCapabilities {
  max_options?: number;
  batch: boolean;
  probabilities: boolean;
  model?: string | null;
  [fact: string]: unknown;
}

/**
 * The shared base of engines that only pick among options (chat models asked by letter, a hosted model with
 * a forced tool call, the mock, a team's simple engine): `evaluate` over typed questions from a `pick` per
 * question. A choice's candidates become options, a yes/no question the options "yes" and "no", a score's
 * levels options in order. Engines without per-option probabilities answer choice and yes/no only; their
 * one confidence is spread evenly over the other options, and the reply says it is approximate.
 */
export abstract class ChoiceProvider implements System1Provider {
  abstract readonly name: string;

  /** Picks one option of `ask`; throw `ProviderError` / `MalformedResponseError` when the engine fails. */
  protected abstract pick(ask: ChoiceAsk, state: ChoiceState, context: AttemptContext): Promise<unknown>;

  protected abstract choiceCapabilities(): ChoiceCapabilities;

  abstract health(context: AttemptContext): Promise<HealthProbeResult>;

  capabilities(): ProviderCapabilities {
    const facts = this.choiceCapabilities();
    return { ...facts, questions: choiceQuestionCapabilities(facts) };
  }

  /** Every question asked in parallel under the attempt's signal; one engine failure fails the attempt. */
  async evaluate(request: EvaluateRequest, context: AttemptContext): Promise<EvaluateReply> {
    return evaluateByPicks(request, context, (ask, state) => this.pick(ask, state, context));
  }
}

/** What choices can carry: scores only with probabilities (a score is a distribution over its levels). */
export function choiceQuestionCapabilities({
  max_options: limit,
  probabilities,
}: ChoiceCapabilities): QuestionCapabilities {
  return {
    types: probabilities ? ['choice', 'noul', 'score'] : ['choice', 'noul'],
    ...(limit !== undefined && { max_options: limit }),
    ...(limit !== undefined && probabilities && { max_levels: limit }),
  };
}

/** The body of {@link ChoiceProvider.evaluate}, for engines given as a plain `pick` function too. */
export async function evaluateByPicks(
  request: EvaluateRequest,
  context: AttemptContext,
  pick: (ask: ChoiceAsk, state: ChoiceState, context: AttemptContext) => Promise<unknown>,
): Promise<EvaluateReply> {
  const entries = Object.entries(request.questions);
  const asks = entries.map(([id, question]) => asChoice(id, question));
  const state = choiceState(request.state);
  const picks = await Promise.all(asks.map((ask) => pick(ask, state, context)));

  const answers: Record<string, unknown> = {};
  const errors: Record<string, DecisionError> = {};
  let approximate = false;
  entries.forEach(([id, question], index) => {
    const read = readPick(picks[index], asks[index]);
    if ('error' in read) {
      errors[id] = read.error;
      return;
    }
    approximate ||= read.approximate;
    const shape = systemOneShape(question, asks[index].options, read.decision, read.probabilities);
    answers[id] = read.rationale === undefined ? shape : { ...shape, rationale: read.rationale };
  });
  return {
    answers,
    ...(Object.keys(errors).length > 0 ? { errors } : {}),
    ...(approximate ? { approximate: true } : {}),
  };
}

/** Engines take a state object; text or a list becomes `{state}` so it reaches them whole. */
function choiceState(state: EvaluateRequest['state']): ChoiceState {
  if (state === undefined) return undefined;
  return typeof state === 'object' && state !== null && !Array.isArray(state) ? state : { state };
}

type ReadPick =
  | { decision: string; probabilities: Record<string, number>; approximate: boolean; rationale?: string }
  | { error: DecisionError };

/**
 * A pick is checked strictly: a non-object, a decision not among the options, a confidence outside [0, 1]
 * or probabilities that are not per-option numbers in [0, 1] make the answer invalid.
 */
function readPick(pick: unknown, ask: ChoiceAsk): ReadPick {
  const invalid = (detail: string): ReadPick => ({
    error: { code: DecisionErrorCode.InvalidResponse, message: detail },
  });
  if (!isRecord(pick)) return invalid(`the answer is not an object (got ${kindOf(pick)})`);
  const rationale = typeof pick.rationale === 'string' ? pick.rationale : undefined;
  if (pick.abstain === true)
    return { error: { code: DecisionErrorCode.Abstained, message: rationale ?? 'the engine declined to answer' } };

  const { decision, confidence, probabilities } = pick;
  if (typeof decision !== 'string') return invalid(`the answer has no decision (got ${kindOf(decision)})`);
  if (!ask.options.includes(decision)) return invalid(`the decision ${shown(decision)} is not one of the options`);
  if (!isProbability(confidence)) return invalid(`the confidence ${shown(confidence)} is not a number in [0, 1]`);
  if (probabilities === undefined || probabilities === null) {
    return { decision, probabilities: spread(ask.options, decision, confidence), approximate: true, rationale };
  }
  if (!isRecord(probabilities)) return invalid('probabilities is not an object');
  const options = new Set(ask.options);
  for (const [option, value] of Object.entries(probabilities)) {
    if (!options.has(option)) return invalid(`probabilities name ${shown(option)}, which is not an option`);
    if (!isProbability(value)) return invalid(`the probability of ${shown(option)} is not a number in [0, 1]`);
  }
  return { decision, probabilities: probabilities as Record<string, number>, approximate: false, rationale };
}

/** The option labels carry the candidates' descriptions, since a choice engine sees only the labels. */
export function asChoice(id: string, question: Question): ChoiceAsk {
  const text = render(question.instructions);
  switch (question.type) {
    case 'choice':
      return {
        id,
        text,
        options: Object.entries(question.criteria).map(([key, description]) =>
          isBare(key, description) ? key : `${key}: ${render(description!)}`,
        ),
        yesNo: isYesNo(question.criteria),
      };
    case 'noul':
      return { id, text: noulText(question), options: ['yes', 'no'], yesNo: true };
    case 'score':
      return {
        id,
        text: `${text} (levels from lowest to highest)`,
        options: question.criteria.map((level, i) => `${i}: ${render(level)}`),
        yesNo: false,
      };
    case 'box':
      // The capability check stops box questions before they get here.
      throw new Error('a box question cannot be asked as a choice');
  }
}

/** A choice between the bare candidates yes and no, as `system1_decide` asks a question without options. */
function isYesNo(criteria: Record<string, unknown>): boolean {
  const keys = Object.keys(criteria);
  return (
    keys.length === 2 &&
    keys[0] === 'yes' &&
    keys[1] === 'no' &&
    isBare('yes', criteria.yes) &&
    isBare('no', criteria.no)
  );
}

/** The answer in the System One shape, so one reader checks every engine's answers. */
function systemOneShape(
  question: Question,
  options: string[],
  decision: string,
  probabilities: Record<string, number>,
) {
  const byOption = options.map((option) => (Object.hasOwn(probabilities, option) ? probabilities[option] : 0));
  switch (question.type) {
    case 'choice': {
      const keys = Object.keys(question.criteria);
      return {
        type: 'choice',
        choice: keys[options.indexOf(decision)],
        probabilities: Object.fromEntries(keys.map((key, i) => [key, byOption[i]])),
      };
    }
    case 'noul':
      return { type: 'noul', noul: byOption[0] };
    default:
      return {
        type: 'score',
        score: byOption.reduce((sum, p, level) => sum + level * p, 0),
        probabilities: Object.fromEntries(byOption.map((p, level) => [String(level), p])),
      };
  }
}

/** A lone confidence as a distribution: the rest shared evenly by the other options. */
function spread(options: string[], decision: string, confidence: number): Record<string, number> {
  const rest = (1 - confidence) / (options.length - 1);
  return Object.fromEntries(options.map((option) => [option, option === decision ? confidence : rest]));
}
