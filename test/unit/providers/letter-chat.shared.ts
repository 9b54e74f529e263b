/**
 * What the `ollama` and `openai` suites share: the request they send through the gateway, the fault rows
 * every FakeEngine plays with the outcome and words a user should see, and the expected letter shares.
 */
import type { Fault } from '../../fakes/fake-engine';

/** Short, so the hanging faults end quickly; the slow fault's 5 s answer would show if the timeout were ignored. */
export const TIMEOUT_S = 0.3;
export const SLOW_MS = 5000;

export const REQUEST = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: ['rerun the pipeline', 'block the merge'],
  context: { cwd: '/repo', failures: 2 },
  request_id: 'letters-1',
};

/** The user message the letter technique builds for {@link REQUEST}. */
export const REQUEST_PROMPT =
  'Rerun the flaky pipeline or block the merge?\nContext: {"cwd":"/repo","failures":2}\nA) rerun the pipeline\nB) block the merge\nAnswer:';

export const SYSTEM_PROMPT = 'Answer with the letter of exactly one option.';

export type Outcome = 'timeout' | 'error' | 'malformed';

/** Faults whose words come from the shared HTTP client, the same for every engine. */
export const CLIENT_FAULTS: [Fault, Outcome, string | RegExp][] = [
  ['slow', 'timeout', `no answer within ${TIMEOUT_S} s`],
  ['hang', 'timeout', `no answer within ${TIMEOUT_S} s`],
  ['hang-after-headers', 'timeout', `no answer within ${TIMEOUT_S} s`],
  ['stall-body', 'timeout', `no answer within ${TIMEOUT_S} s`],
  ['status-429', 'error', /HTTP 429 from 127\.0\.0\.1:\d+: .* \(retry after 1 s\)/],
  // A connection closed mid-body reads as either, depending on where the socket was when it closed.
  ['reset', 'error', /the engine reset the connection|the reply was cut off/],
  ['truncated', 'error', /the reply was cut off|the engine reset the connection/],
  ['non-json', 'malformed', /the reply from 127\.0\.0\.1:\d+ is not JSON \(text\/plain/],
  ['html-502', 'error', /^HTTP 502 from 127\.0\.0\.1:\d+$/],
  ['huge', 'error', 'the reply is larger than 1048576 bytes'],
  ['redirect', 'error', 'redirect refused: HTTP 302'],
];

/**
 * The share the letter technique should give `letter` among the letter tokens of `top` (a token counts
 * when, trimmed, it is exactly an upper-case option letter), written out independently of the provider.
 */
export function expectedShare(top: { token: string; logprob: number }[], letter: string, letters = ['A', 'B']): number {
  const counted = top.filter(({ token }) => letters.includes(token.trim()));
  const mass = (entries: typeof counted) => entries.reduce((sum, { logprob }) => sum + Math.exp(logprob), 0);
  return mass(counted.filter(({ token }) => token.trim() === letter)) / mass(counted);
}

/** The fakes' default answer: A at -0.105, B at -2.31, " A" at -6.2. */
export const DEFAULT_TOP = [
  { token: 'A', logprob: -0.105 },
  { token: 'B', logprob: -2.31 },
  { token: ' A', logprob: -6.2 },
];

export { eventually } from '../../helpers/eventually';

/** A matcher for a detail given as a pattern or as literal words. */
export function matching(detail: string | RegExp): RegExp {
  return detail instanceof RegExp ? detail : new RegExp(detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}
