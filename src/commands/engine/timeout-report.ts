import { duration, type EngineTiming } from '../../local-engines/reranker/engine-timing';
import { TIMEOUT_CAP_S, TIMEOUT_HEADROOM, TYPICAL_CANDIDATES } from '../../local-engines/reranker/engine-timeout';
import type { TimeoutOutcome } from '../../local-engines/reranker/engine-config.service';

/** What `engine start` did to `[gateway] timeout_s`, and why, in lines. */
export function describeTimeout(outcome: TimeoutOutcome, timing: EngineTiming): string[] {
  const note = outcome.note ? [`Note: ${outcome.note}.`] : [];
  const predicted = timing.predicted_ms[TYPICAL_CANDIDATES];
  if (outcome.kind === 'unreadable')
    return [`[gateway] timeout_s in ${outcome.file} was left as it is (${outcome.why}).`, ...note];
  const { needed_s, value_s, capped } = outcome.plan;
  const why =
    `a decision of ${TYPICAL_CANDIDATES} candidates is predicted at ~${duration(predicted)}; ` +
    `${TIMEOUT_HEADROOM}x that, rounded up, is ${needed_s} s` +
    (capped ? `, over the key's maximum of ${TIMEOUT_CAP_S} s: such decisions will still time out` : '');
  const lines =
    outcome.kind === 'raised'
      ? [`Set [gateway] timeout_s = ${value_s} in ${outcome.file} (it was ${outcome.from_s} s): ${why}.`]
      : outcome.kind === 'enough'
        ? [
            `[gateway] timeout_s is ${outcome.current_s} s${outcome.isDefault ? ' (the default)' : ''} in ` +
              `${outcome.file}, enough already: ${why}. Left as it is.`,
          ]
        : [
            `[gateway] timeout_s in ${outcome.file} was left as it is (${outcome.why}); ${why}. ` +
              'To cover it, set in its [gateway] table:',
            `  ${outcome.line}`,
          ];
  const ninety = timing.predicted_ms[90];
  const cutShort =
    ninety > value_s * 1000
      ? [
          `A decision of 90 candidates (~${duration(ninety)}) would still time out at ${value_s} s and fall back: ` +
            `give such decisions fewer candidates, or take a faster way${timing.slow ? ' (above)' : ''}.`,
        ]
      : [];
  return [...lines, ...cutShort, ...note];
}
