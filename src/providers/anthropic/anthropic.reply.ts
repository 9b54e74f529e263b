import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { MalformedResponseError } from '../../decisions/errors/decision-error';
import type { ChoiceAsk, ChoicePick } from '../choice/choice-provider';
import { CHOOSE_TOOL, RANKING_MAX } from './anthropic.request';

export interface ReplyContext {
  model: string;
  maxTokens: number;
}

/**
 * Reads a Messages API reply (wire-contracts 3.2) into an answer: the forced `choose` call's first ranked
 * name is the decision and its `confidence` the model's own estimate, so no probabilities are reported.
 * A `refusal` stop is the model declining, which is an abstention; anything that breaks the tool's
 * contract (no call, a name outside the options, a confidence outside [0, 1], a call cut off at
 * `max_tokens`) is malformed.
 */
export function answerFromMessage(body: unknown, question: ChoiceAsk, { model, maxTokens }: ReplyContext): ChoicePick {
  if (!isRecord(body) || !Array.isArray(body.content)) {
    throw new MalformedResponseError('the reply is not a Messages API message (no content blocks)');
  }
  const stopReason = body.stop_reason;
  if (stopReason === 'refusal') {
    return {
      abstain: true,
      rationale: `anthropic ${model} declined to answer (stop_reason refusal); reason it through yourself`,
    };
  }
  const call: unknown = body.content.find(
    (block) => isRecord(block) && block.type === 'tool_use' && block.name === CHOOSE_TOOL,
  );
  const input = isRecord(call) && isRecord(call.input) ? call.input : undefined;
  const problem = input ? choiceProblem(input, question) : `the reply has no \`${CHOOSE_TOOL}\` tool call`;
  if (problem !== undefined) {
    // A call cut off by the token limit can look like any of the problems; the limit is what to change.
    if (stopReason === 'max_tokens') {
      throw new MalformedResponseError(
        `the reply stopped at max_tokens (${maxTokens}) before the \`${CHOOSE_TOOL}\` call was complete; ` +
          'raise providers.anthropic.max_tokens',
      );
    }
    throw new MalformedResponseError(problem);
  }
  const ranking = input!.ranking as string[];
  return {
    decision: ranking[0],
    confidence: input!.confidence as number,
    rationale: `anthropic ${model} (self-reported confidence): ${ranking.join(' > ')}`,
  };
}

/** What breaks the `choose` tool's schema, or undefined when the input keeps it. */
function choiceProblem(input: Record<string, unknown>, question: ChoiceAsk): string | undefined {
  const { ranking, confidence } = input;
  if (!Array.isArray(ranking) || ranking.length === 0)
    return `the \`${CHOOSE_TOOL}\` call has no ranking (got ${shown(ranking)})`;
  if (ranking.length > RANKING_MAX)
    return `the \`${CHOOSE_TOOL}\` call ranks ${ranking.length} names, more than ${RANKING_MAX}`;
  const outside: unknown = ranking.find((name) => typeof name !== 'string' || !question.options.includes(name));
  if (outside !== undefined) return `the model ranked ${shown(outside)}, which is not one of the options`;
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    return (
      `the \`${CHOOSE_TOOL}\` call's confidence ` +
      `${confidence === undefined ? 'is missing' : `${shown(confidence)} is not a number in [0, 1]`}`
    );
  }
  return undefined;
}
