import { isRecord } from '../../common/is-record';
import { keyedMap } from '../../common/own-keys';
import type { DecisionError } from '../errors/decision-error';
import type { EvaluateReply } from '../registry/provider.interface';
import { STRAY_IDS_SHOWN, type StrayAnswers } from './engine-reply';

type ReadReply = { reply: EvaluateReply; stray: StrayAnswers };

/**
 * The replies to one call asked in passes (see questionPasses), as if the engine had answered it in one:
 * every pass's answers and errors, the first model named, the tokens of all passes added up, approximate
 * or degraded when any pass was, and the stray answers of all of them counted.
 */
export function joinedReplies(passes: readonly ReadReply[]): ReadReply {
  if (passes.length === 1) return passes[0];
  const answers = keyedMap<unknown>();
  const errors = keyedMap<DecisionError>();
  const stray: StrayAnswers = { count: 0, first: [] };
  for (const { reply, stray: strayOfPass } of passes) {
    Object.assign(answers, reply.answers);
    if (reply.errors) Object.assign(errors, reply.errors);
    stray.count += strayOfPass.count;
    stray.first.push(...strayOfPass.first.slice(0, STRAY_IDS_SHOWN - stray.first.length));
  }
  const replies = passes.map(({ reply }) => reply);
  const model = replies.find((reply) => reply.model !== undefined)?.model;
  const usage = summedUsage(replies.map((reply) => reply.usage));
  const any = (field: 'approximate' | 'degraded') =>
    replies.some((reply) => reply[field] === true)
      ? true
      : replies.find((reply) => reply[field] !== undefined)?.[field];
  const approximate = any('approximate');
  const degraded = any('degraded');
  return {
    reply: {
      answers,
      ...(Object.keys(errors).length > 0 && { errors }),
      ...(model !== undefined && { model }),
      ...(usage !== undefined && { usage }),
      ...(approximate !== undefined && { approximate }),
      ...(degraded !== undefined && { degraded }),
    },
    stray,
  };
}

/** Each count added up over the passes that report it as a number; the first usage as it is when none do. */
function summedUsage(usages: readonly EvaluateReply['usage'][]): EvaluateReply['usage'] {
  const reported = usages.filter((usage) => usage !== undefined);
  if (reported.length === 0) return undefined;
  const sum = (field: 'inputTokens' | 'outputTokens') => {
    const counts = reported
      .map((usage) => (isRecord(usage) ? usage[field] : undefined))
      .filter((count): count is number => typeof count === 'number' && Number.isFinite(count));
    return counts.length === 0 ? undefined : counts.reduce((total, count) => total + count, 0);
  };
  const inputTokens = sum('inputTokens');
  const outputTokens = sum('outputTokens');
  if (inputTokens === undefined && outputTokens === undefined) return reported[0];
  return { ...(inputTokens !== undefined && { inputTokens }), ...(outputTokens !== undefined && { outputTokens }) };
}
