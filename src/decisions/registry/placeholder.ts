/**
 * What to do without a real engine, said the same way by every surface that finds only a stand-in: the
 * reranker needs no Python and no GPU, so it is the one-line way; the README's "Engines" lists the others.
 */
export const CHOOSE_AN_ENGINE =
  'choose an engine: `system1 engine pull reranker` then `system1 engine start reranker`, ' +
  'or set [gateway] provider to one you run (README "Engines")';

/**
 * Why the engines `names` may not answer in a real model's place: each is a mock the installer wrote with
 * `placeholder = true` because it found no engine, and the operator never named it.
 */
export function placeholderProblem(names: readonly string[]): string {
  const tables = names.map((name) => `[providers.${name}]`).join(', ');
  return (
    `the engine ${names.join(', ')} is the installer's stand-in (placeholder = true in ${tables}, written ` +
    'because no engine answered at install): it always picks the first option, so its answers are no ' +
    `model's. To answer, ${CHOOSE_AN_ENGINE}; to serve the mock on purpose, delete that placeholder line`
  );
}

/** Why `system1_health` warns when every engine of the chain is the mock, whoever named it. */
export const ONLY_THE_MOCK =
  "the only engine is the mock, a stand-in that always picks the first option: its answers are no model's. " +
  `For real decisions, ${CHOOSE_AN_ENGINE}`;
