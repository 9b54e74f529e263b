import type { HealthReport } from '../decisions/pipeline/health.service';

/** `/readyz`'s answer: ready, or why not in a word (`reason`) and a short sentence (`detail`). */
export type Readiness =
  | { ready: true; paused: boolean }
  | { ready: false; reason: 'draining' | 'config_errors' | 'no_provider_up'; detail: string };

/**
 * Whether this replica should get traffic: its config is valid and at least one provider of the chain
 * answers its health probe. A paused gateway is ready (it answers at once, abstaining: the pause is the
 * team's, not this replica's). The detail names providers, never a file, an address or a config value:
 * `/readyz` needs no token. Load balancers poll it, so checks asked while one runs share it.
 */
export class ReadinessCheck {
  private running?: Promise<Readiness>;

  constructor(private readonly health: () => Promise<HealthReport>) {}

  check(): Promise<Readiness> {
    this.running ??= this.evaluate().finally(() => (this.running = undefined));
    return this.running;
  }

  private async evaluate(): Promise<Readiness> {
    const report = await this.health();
    const errors = report.config_errors.length;
    if (errors > 0)
      return {
        ready: false,
        reason: 'config_errors',
        detail:
          `the config has ${errors} problem${errors === 1 ? '' : 's'}; ` +
          'system1_health or the server log names them',
      };
    if (!report.providers.some((probe) => probe.ok)) {
      const names = report.providers.map((probe) => probe.name).join(', ');
      return {
        ready: false,
        reason: 'no_provider_up',
        detail: `no provider of the chain answered its health probe (${names || 'none configured'})`,
      };
    }
    return { ready: true, paused: report.paused };
  }
}
