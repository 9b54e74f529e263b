/**
 * Laya's checkpoints: which names pin one, and whether the checkpoint that answered is the one pinned
 * (laya-serve silently auto-routes a name it does not serve).
 */
import { isRecord } from '../../common/is-record';
import { shown } from '../../common/clip';
import { type DecisionError, DecisionErrorCode, MalformedResponseError } from '../../decisions/errors/decision-error';
import { type EvaluateRequest, ProviderSettingError } from '../../decisions/registry/provider.interface';
import { NON_LATIN_LIMIT, nonLatinShare, textsOfQuestion } from './laya-script';
import type { AnsweredBy } from './systemone-dialect';

/** The names that pin a Laya checkpoint, and the checkpoint each one means. Any other name auto-routes. */
const CHECKPOINTS: Readonly<Record<string, string>> = {
  english: 'english',
  multilingual: 'multilingual',
  'typed-decisions': 'typed-decisions',
  'convaiinnovations/laya-multilingual': 'multilingual',
  'convaiinnovations/laya-typed-decisions': 'typed-decisions',
};

/** The checkpoint a name means (a name Laya would auto-route is returned as it is). */
export function checkpointOf(name: string): string {
  return Object.hasOwn(CHECKPOINTS, name) ? CHECKPOINTS[name] : name;
}

/** The pinned checkpoint's short name for a `model` setting; null when Laya routes (`""`). */
export function pinnedCheckpoint(model: string): string | null {
  return model === '' ? null : checkpointOf(model);
}

/** A `model` that names no checkpoint is refused: laya-serve would answer from another one. */
export function checkCheckpointName(model: string): void {
  if (model === '' || Object.hasOwn(CHECKPOINTS, model)) return;
  const known = Object.keys(CHECKPOINTS)
    .map((name) => JSON.stringify(name))
    .join(', ');
  throw new ProviderSettingError(
    'model',
    `names no Laya checkpoint (got ${shown(model)}); laya-serve would silently auto-route it to another checkpoint. ` +
      `Use one of ${known}, or "" to let Laya route on purpose`,
  );
}

/** English-only checkpoints are confidently wrong on mostly non-Latin text: such questions are declined. */
export function declineNonLatin(request: EvaluateRequest, checkpoint: string | null): Record<string, DecisionError> {
  const declined: Record<string, DecisionError> = {};
  if (checkpoint === null || checkpoint === 'multilingual') return declined;
  for (const [id, question] of Object.entries(request.questions)) {
    const share = nonLatinShare(textsOfQuestion(id, question, request.state));
    if (share > NON_LATIN_LIMIT) {
      declined[id] = {
        code: DecisionErrorCode.Abstained,
        message:
          `laya ${checkpoint}: ${Math.round(share * 100)}% of the letters in the question, options and context are ` +
          'not Latin, and this checkpoint is English-only (confidently wrong on such text); set model = ' +
          '"multilingual" in [providers.laya] for it',
      };
    }
  }
  return declined;
}

/**
 * The checkpoint that answered (`routing.model`, not the server's name for itself, `laya-rl-agent`), held
 * to the one pinned.
 */
export function layaAnsweredBy(
  body: Record<string, unknown>,
  model: string | undefined,
  checkpoint: string | null,
): AnsweredBy {
  const routing = body.routing;
  const named = isRecord(routing) ? routing.model : undefined;
  const routed = typeof named === 'string' && named !== '' ? named : undefined;
  return { model: routed ?? checkpoint ?? model, source: attribution(routing, checkpoint) };
}

function attribution(routing: unknown, checkpoint: string | null): string {
  if (routing === undefined) {
    const unverified = 'checkpoint not verified: the reply has no routing block, as under LAYA_JEV_STRICT';
    return `laya ${checkpoint ?? 'auto-routed'} (${unverified})`;
  }
  const answered = isRecord(routing) ? routing.model : undefined;
  if (typeof answered !== 'string' || answered === '') {
    throw new MalformedResponseError(
      `laya reply has a routing block without the checkpoint that answered (routing.model is ${shown(answered)})`,
    );
  }
  if (checkpoint === null) return `laya ${answered} (auto-routed)`;
  if (checkpointOf(answered) !== checkpoint) {
    throw new MalformedResponseError(
      `Laya answered with checkpoint ${shown(answered)} instead of ${shown(checkpoint)}: laya-serve auto-routes a ` +
        `model it does not serve, so this laya-serve lacks ${shown(checkpoint)} (upgrade it, or set model = "" to ` +
        'accept its routing)',
    );
  }
  return `laya ${checkpoint}`;
}
