import { checkAnswer } from './answer-check';
import {
  AttemptContext,
  DecisionQuestion,
  EvaluateReply,
  EvaluateRequest,
  ProviderCapabilities,
  System1Provider,
} from './provider.interface';
import { QuestionCapabilities } from './question-capabilities';
import { Described, Question, QuestionError } from './question.types';

/**
 * Typed questions for engines that only pick among options (chat models asked by letter, a hosted model
 * with a forced tool call, the mock): a choice's candidates become options, a yes/no question the options
 * "yes" and "no", a score's levels options in order. Engines without per-option probabilities answer
 * choice and yes/no only; their one confidence is spread evenly over the other options, and the reply says
 * it is approximate.
 */
export function bridgedCapabilities(capabilities: ProviderCapabilities): QuestionCapabilities {
  const limit = capabilities.max_options;
  const score = capabilities.probabilities;
  return {
    types: score ? ['choice', 'noul', 'score'] : ['choice', 'noul'],
    ...(limit !== undefined && { max_options: limit }),
    ...(limit !== undefined && score && { max_levels: limit }),
  };
}

/** What a provider takes as typed questions: its own word when it has `evaluate`, else what choices can carry. */
export function typedCapabilities(
  provider: { evaluate?: unknown },
  capabilities: ProviderCapabilities,
): QuestionCapabilities {
  if (provider.evaluate) return capabilities.questions ?? { types: ['choice', 'noul', 'score'] };
  return bridgedCapabilities(capabilities);
}

export async function askThroughChoices(
  provider: Pick<System1Provider, 'decide' | 'capabilities'>,
  request: EvaluateRequest,
  context: AttemptContext,
): Promise<EvaluateReply> {
  const entries = Object.entries(request.questions);
  const asked = entries.map(([id, question]) => asChoice(id, question));
  // Engines take a state object; text becomes {text} so it reaches them whole.
  const state = typeof request.state === 'string' || Array.isArray(request.state) ? { state: request.state } : request.state;
  const replies = await provider.decide({ state, questions: asked }, context);

  const answers: Record<string, unknown> = {};
  const errors: Record<string, QuestionError> = {};
  let approximate = false;
  entries.forEach(([id, question], index) => {
    const checked = checkAnswer(Object.hasOwn(replies, id) ? replies[id] : undefined, asked[index]);
    if (checked.kind === 'malformed') {
      errors[id] = { code: 'invalid_response', message: `answer to ${JSON.stringify(id)}: ${checked.detail}` };
      return;
    }
    if (checked.kind === 'abstain') {
      errors[id] = { code: 'unsupported', message: `the engine declined to answer${checked.rationale ? `: ${checked.rationale}` : ''}` };
      return;
    }
    const probabilities = checked.probabilities ?? spread(asked[index].options, checked.decision, checked.confidence);
    approximate ||= checked.probabilities === null;
    answers[id] = systemOneShape(question, asked[index].options, checked.decision, probabilities);
  });
  return { answers, ...(Object.keys(errors).length > 0 && { errors }), ...(approximate ? { approximate: true } : {}) };
}

/** The option labels carry the candidates' descriptions, since a choice engine sees only the labels. */
function asChoice(id: string, question: Question): DecisionQuestion {
  const text = render(question.instructions);
  switch (question.type) {
    case 'choice':
      return {
        id,
        text,
        options: Object.entries(question.criteria).map(([key, description]) => (description === null ? key : `${key}: ${render(description)}`)),
        yesNo: false,
      };
    case 'noul': {
      const meaning = [
        question.criteria?.true !== undefined ? `Yes means: ${render(question.criteria.true)}.` : '',
        question.criteria?.false !== undefined ? `No means: ${render(question.criteria.false)}.` : '',
      ].filter(Boolean);
      return { id, text: [text, ...meaning].join(' '), options: ['yes', 'no'], yesNo: true };
    }
    case 'score':
      return { id, text: `${text} (levels from lowest to highest)`, options: question.criteria.map((level, i) => `${i}: ${render(level)}`), yesNo: false };
    case 'box':
      // capabilityRefusal stops box questions before they get here.
      throw new Error('a box question cannot be asked as a choice');
  }
}

/** The answer as a System One engine would give it, so one reader checks every engine's answers. */
function systemOneShape(question: Question, options: string[], decision: string, probabilities: Record<string, number>) {
  const byOption = options.map((option) => probabilities[option] ?? 0);
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

export function render(text: Described): string {
  return typeof text === 'string' ? text : JSON.stringify(text);
}
