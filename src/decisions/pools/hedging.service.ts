import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../../config/config.loader';
import { system1Config } from '../../config/system1.config';
import { EndpointLoad } from './endpoint-load.service';

/** The percentile "auto" waits for: The Tail at Scale's choice, so about one request in twenty is hedged. */
export const AUTO_HEDGE_PERCENTILE = 0.95;

/**
 * A share of requests, kept as tokens: each request earns `share` of a hedge, each hedge spends one. Past a few
 * unspent hedges no more are saved, so a long quiet spell cannot pay for a burst that doubles the load.
 */
class HedgeBudget {
  private tokens = 0;
  private readonly cap: number;

  constructor(private readonly share: number) {
    this.cap = Math.max(1, share * 100);
  }

  earn(): void {
    this.tokens = Math.min(this.cap, this.tokens + this.share);
  }

  spend(): boolean {
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * When a pool's request is sent to a second replica (`[gateway] hedge_after_ms`, a number or "auto": the pool's
 * recent p95), and the budget that caps how many are (`hedge_budget`, a share of the pool's requests). Hedging
 * is for decisions only because they are read-only: asking two replicas the same question is safe.
 */
@Injectable()
export class Hedging {
  private readonly budgets = new Map<string, HedgeBudget>();

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly load: EndpointLoad,
  ) {}

  /**
   * How long a request to `provider`'s pool waits before a second copy goes out, or undefined for none (hedging
   * off, or "auto" without enough recent latencies to say what is slow). Counts the request against the budget.
   */
  delayFor(provider: string, setting: number | 'auto' = this.config.gateway.hedge_after_ms): number | undefined {
    if (setting === 0) return undefined;
    this.budget(provider).earn();
    return setting === 'auto' ? this.load.percentile(provider, AUTO_HEDGE_PERCENTILE) : setting;
  }

  /** Whether the budget allows one more hedge now (it is spent if so). */
  spend(provider: string): boolean {
    return this.budget(provider).spend();
  }

  private budget(provider: string): HedgeBudget {
    let budget = this.budgets.get(provider);
    if (!budget) this.budgets.set(provider, (budget = new HedgeBudget(this.config.gateway.hedge_budget)));
    return budget;
  }
}
