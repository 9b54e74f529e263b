/**
 * Reads a Decisions API reply (wire-contracts §10.2: `answers` in question order, `model`, `usage`) into the
 * gateway's reply: each answer in the System One shape the pipeline reads against its question, a `refusal`
 * as that question's abstention, the model and the token counts.
 */
import { isRecord, kindOf } from '../../common/is-record';
import { setOwn } from '../../common/own-keys';
import { shown } from '../../common/clip';
import { type DecisionError, DecisionErrorCode, MalformedResponseError } from '../../decisions/errors/decision-error';
import { isTokenCount } from '../../decisions/pipeline/engine-reply';
import type { EvaluateReply } from '../../decisions/registry/provider.interface';
import { rationaleOf } from '../system-one/systemone-protocol';
import type { DecisionsQuestion } from './decisions-request';

/** One answer read: the System One answer, or why this question alone has none. */
type ReadOne = { answer: Record<string, unknown> } | { error: DecisionError };

/**
 * The reply to `sent`, answers mapped back by position. The whole reply is unreadable (and the chain moves
 * on) when it is not an object with an `answers` list of one answer per question, or when an answer's name
 * or type is not its question's: a host that reordered or dropped answers would otherwise answer one question
 * with another's answer. A bad answer to one question (a value we never sent, a level out of range) fails
 * that question alone.
 */
export function readDecisionsReply(body: unknown, sent: readonly DecisionsQuestion[], engine: string): EvaluateReply {
  if (!isRecord(body))
    throw new MalformedResponseError(`${engine} answered ${kindOf(body)} instead of a Decisions API reply object`);
  const { answers } = body;
  if (!Array.isArray(answers))
    throw new MalformedResponseError(`${engine} answered without an "answers" list (got ${kindOf(answers)})`);
  if (answers.length !== sent.length)
    throw new MalformedResponseError(`${engine} gave ${answers.length} answers to ${sent.length} questions`);
  const model = typeof body.model === 'string' ? body.model : undefined;
  const source = `${engine} ${model ?? 'server model'}`;
  const read: Record<string, unknown> = {};
  const errors: Record<string, DecisionError> = {};
  sent.forEach((question, position) => {
    const one = readOne(answers[position], question, position, engine);
    if ('error' in one) errors[question.name] = one.error;
    else read[question.name] = { ...one.answer, rationale: rationaleOf(source, one.answer) };
  });
  const usage = usageOf(body.usage);
  return {
    answers: read,
    ...(Object.keys(errors).length > 0 && { errors }),
    ...(model !== undefined && { model }),
    ...(usage && { usage }),
  };
}

function readOne(answer: unknown, question: DecisionsQuestion, position: number, engine: string): ReadOne {
  const { name } = question;
  const at = `answer ${position + 1} (for question ${shown(name)})`;
  if (!isRecord(answer)) throw new MalformedResponseError(`${engine}'s ${at} is ${kindOf(answer)}, not an object`);
  if (answer.name !== name)
    throw new MalformedResponseError(`${engine}'s ${at} is named ${shown(answer.name)}: answers out of order`);
  if (answer.type === 'refusal')
    return { error: { code: DecisionErrorCode.Abstained, message: `${engine} refused to answer ${shown(name)}` } };
  if (answer.type !== question.type)
    throw new MalformedResponseError(`${engine}'s ${at} is of type ${shown(answer.type)}, not ${question.type}`);
  const invalid = (problem: string): ReadOne => ({
    error: { code: DecisionErrorCode.InvalidResponse, message: `${engine} answer to ${shown(name)}: ${problem}` },
  });
  switch (question.type) {
    case 'predicate':
      // The pipeline checks that it is a probability.
      return { answer: { type: 'noul', noul: answer.probability } };
    case 'choice':
      return choiceAnswer(answer, invalid);
    case 'score':
      return scoreAnswer(answer, question.levels, invalid);
  }
}

/**
 * A choice's `probabilities` list keyed by value. We send only strings (our candidates are named), so a
 * boolean value, or a value twice, is not an answer to what we asked.
 */
function choiceAnswer(answer: Record<string, unknown>, invalid: (problem: string) => ReadOne): ReadOne {
  const { choice, probabilities } = answer;
  if (typeof choice !== 'string') return invalid(`the choice ${shown(choice)} is not one of the values sent`);
  if (!Array.isArray(probabilities)) return invalid(`"probabilities" is ${kindOf(probabilities)}, not a list`);
  const keyed: Record<string, unknown> = {};
  for (const entry of probabilities as unknown[]) {
    if (!isRecord(entry) || typeof entry.value !== 'string')
      return invalid(`"probabilities" hold ${shown(isRecord(entry) ? entry.value : entry)}, not a value sent`);
    if (Object.hasOwn(keyed, entry.value)) return invalid(`"probabilities" name ${shown(entry.value)} twice`);
    // A value may be named like an Object.prototype member ("__proto__"): setOwn keeps it a key.
    setOwn(keyed, entry.value, entry.probability);
  }
  return { answer: { type: 'choice', choice, probabilities: keyed } };
}

/** A score's `probabilities` list keyed by level index, each label the level sent at that index. */
function scoreAnswer(
  answer: Record<string, unknown>,
  levels: readonly { label: string }[],
  invalid: (problem: string) => ReadOne,
): ReadOne {
  const { score, probabilities } = answer;
  if (!Array.isArray(probabilities)) return invalid(`"probabilities" is ${kindOf(probabilities)}, not a list`);
  const keyed: Record<string, unknown> = {};
  for (const entry of probabilities as unknown[]) {
    const index = isRecord(entry) ? entry.value : undefined;
    if (!isRecord(entry) || !Number.isInteger(index) || (index as number) < 0 || (index as number) >= levels.length)
      return invalid(`"probabilities" hold the level ${shown(index)}, not an index from 0 to ${levels.length - 1}`);
    const sent = levels[index as number].label;
    if (entry.label !== undefined && entry.label !== sent)
      return invalid(`level ${String(index)} is labelled ${shown(entry.label)}, not the level sent`);
    if (Object.hasOwn(keyed, String(index))) return invalid(`"probabilities" name level ${String(index)} twice`);
    keyed[String(index)] = entry.probability;
  }
  return { answer: { type: 'score', score, probabilities: keyed } };
}

/** The token counts the pipeline keeps; the details (cached, reasoning) are not passed on. */
function usageOf(usage: unknown): EvaluateReply['usage'] | undefined {
  if (!isRecord(usage)) return undefined;
  const inputTokens = isTokenCount(usage.input_tokens) ? usage.input_tokens : undefined;
  const outputTokens = isTokenCount(usage.output_tokens) ? usage.output_tokens : undefined;
  if (inputTokens === undefined && outputTokens === undefined) return undefined;
  return { ...(inputTokens !== undefined && { inputTokens }), ...(outputTokens !== undefined && { outputTokens }) };
}
