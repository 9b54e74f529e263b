import { type DecisionError, DecisionErrorCode } from '../errors/decision-error';
import type { RuntimeProviders } from '../registry/runtime-providers';
import type { DecisionRequest } from '../questions/decision.types';
import type { ConfigStatus } from './config-status.service';
import type { PauseState } from './pause-state.service';

/**
 * Whether a call may ask any engine at all. A config with problems answers nothing (running on defaults past a
 * typo would ask an engine the user did not choose), and neither does a paused System-1, on every surface. An
 * engine the application registered itself, named explicitly, needs no config and runs despite config problems
 * (not when paused).
 */
export class DecisionGate {
  constructor(
    private readonly runtime: RuntimeProviders,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
  ) {}

  /** Why no engine is asked for `request`, or undefined when one may be. */
  whyNotAsked(request: DecisionRequest): DecisionError | undefined {
    const ownEngine = request.model !== undefined && this.runtime.get(request.model.provider) !== undefined;
    const errors = ownEngine ? [] : this.configStatus.errors();
    if (errors.length > 0) {
      return {
        code: DecisionErrorCode.ConfigError,
        message: `the config is broken: ${errors.map((e) => e.message).join('; ')}`,
      };
    }
    if (this.pause.isPaused())
      return {
        code: DecisionErrorCode.Paused,
        message: 'System-1 is paused (system1 toggle on resumes it); reason it through yourself',
      };
    return undefined;
  }
}
