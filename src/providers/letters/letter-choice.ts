import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { MalformedResponseError } from '../../decisions/errors/decision-error';
import type { ChoiceAsk, ChoicePick, ChoiceState } from '../choice/choice-provider';

/**
 * The letter technique shared by the chat-model adapters (`ollama`, `openai`): a chat model sees the options
 * as letters, generates one token at temperature 0, and the top logprobs of that token give a probability
 * per option. One module, so both engines prompt and read answers the same way.
 *
 * Reading the logprobs:
 * - a candidate token counts for an option when, trimmed of whitespace, it is exactly that option's upper-case
 *   letter: `"B"` and `" B"` both count for B (their probabilities add up, since they are two ways to write
 *   the same answer); `"b"`, `"B)"` and `"Bl"` do not, so prose that happens to start with a capital is
 *   never mistaken for an answer;
 * - each option's probability is its letters' share of exp(logprob) among the letter tokens, 0 when none of
 *   its letter tokens is among the top logprobs (vLLM's -9999.0 and llama-server's lowest float are 0 too);
 * - the decision is the option with the highest share, ties going to the letter the model generated;
 * - a first token that is not an option letter is a malformed reply ("the model answered X, not an option letter").
 */

/** A-Z: one single-character token per option. */
export const MAX_LETTER_OPTIONS = 26;

/** As many alternatives as Ollama and OpenAI-compatible servers accept (0-20). */
export const TOP_LOGPROBS = 20;

export const LETTER_SYSTEM_PROMPT = 'Answer with the letter of exactly one option.';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const letterOf = (index: number) => String.fromCharCode(65 + index);

/** The chat for one question: the question, the state as JSON when there is one, the lettered options. */
export function letterMessages(question: ChoiceAsk, state: ChoiceState): ChatMessage[] {
  const lines = [question.text];
  if (state !== undefined) lines.push(`Context: ${JSON.stringify(state)}`);
  // An option spanning lines would read as several options, so each is kept on its own line.
  question.options.forEach((option, index) =>
    lines.push(`${letterOf(index)}) ${option.replace(/\s*[\r\n]+\s*/g, ' ')}`),
  );
  lines.push('Answer:');
  return [
    { role: 'system', content: LETTER_SYSTEM_PROMPT },
    { role: 'user', content: lines.join('\n') },
  ];
}

export interface LetterReading {
  /** Names the engine and model in the rationale: `ollama gemma4:e4b`. */
  label: string;
  /** Why a reply may lack logprobs on this engine and what to do; shown after "the server returned no logprobs". */
  noLogprobsHint: string;
  /** What may help when the first token is not a letter (e.g. a reasoning model thinking first). */
  notALetterHint?: string;
}

interface TokenLogprob {
  token: string;
  logprob: number;
}

/**
 * Turns the logprobs of the generated tokens (Ollama's top-level `logprobs`, OpenAI's
 * `choices[0].logprobs.content`: one `{token, logprob, top_logprobs}` per token) into an answer.
 */
export function letterAnswer(question: ChoiceAsk, generated: unknown, reading: LetterReading): ChoicePick {
  const first: unknown = Array.isArray(generated) ? generated[0] : undefined;
  if (first === undefined || first === null) {
    throw new MalformedResponseError(`the server returned no logprobs: ${reading.noLogprobsHint}`);
  }
  const chosen = tokenLogprob(first, 'the first generated token');
  if (!isRecord(first) || !Array.isArray(first.top_logprobs) || first.top_logprobs.length === 0) {
    throw new MalformedResponseError(`the server returned no top_logprobs for the answer: ${reading.noLogprobsHint}`);
  }
  const candidates = first.top_logprobs.map((entry) => tokenLogprob(entry, 'a top_logprobs entry'));
  // Servers usually list the chosen token among the alternatives; count it once either way.
  if (!candidates.some((candidate) => candidate.token === chosen.token)) candidates.push(chosen);

  const letters = question.options.map((_, index) => letterOf(index));
  const chosenIndex = letters.indexOf(chosen.token.trim());
  if (chosenIndex < 0) {
    const hint = reading.notALetterHint ? ` (${reading.notALetterHint})` : '';
    throw new MalformedResponseError(`the model answered ${shown(chosen.token)}, not an option letter${hint}`);
  }

  const mass = letters.map(() => 0);
  for (const { token, logprob } of candidates) {
    const index = letters.indexOf(token.trim());
    if (index >= 0) mass[index] += Math.exp(logprob);
  }
  const total = mass.reduce((sum, value) => sum + value, 0);
  if (!(total > 0)) {
    throw new MalformedResponseError(
      `the logprobs give every option letter probability 0 (the model answered ${letters[chosenIndex]})`,
    );
  }
  const shares = mass.map((value) => value / total);
  const best = shares.reduce((top, share, index) => (share > shares[top] ? index : top), chosenIndex);

  return {
    decision: question.options[best],
    confidence: shares[best],
    probabilities: Object.fromEntries(question.options.map((option, index) => [option, shares[index]])),
    rationale: `${reading.label}: ${rationaleShares(question.options, shares)}`,
  };
}

function tokenLogprob(entry: unknown, what: string): TokenLogprob {
  if (
    !isRecord(entry) ||
    typeof entry.token !== 'string' ||
    typeof entry.logprob !== 'number' ||
    Number.isNaN(entry.logprob)
  ) {
    throw new MalformedResponseError(`${what} in the logprobs has no token and numeric logprob`);
  }
  return { token: entry.token, logprob: Math.min(entry.logprob, 0) };
}

/** The leading options, best first: `B) block the merge=0.90, A) rerun the pipeline=0.10`. */
function rationaleShares(options: string[], shares: number[]): string {
  const SHOWN = 5;
  const ranked = options
    .map((option, index) => ({ text: `${letterOf(index)}) ${clip(option)}`, share: shares[index] }))
    .filter(({ share }) => share >= 0.005)
    .sort((a, b) => b.share - a.share);
  const listed = ranked.slice(0, SHOWN).map(({ text, share }) => `${text}=${share.toFixed(2)}`);
  const more = ranked.length > SHOWN ? `, ${ranked.length - SHOWN} more` : '';
  return listed.join(', ') + more;
}

function clip(option: string): string {
  const oneLine = option.replace(/\s+/g, ' ');
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}...` : oneLine;
}
