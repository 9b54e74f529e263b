import { Injectable } from '@nestjs/common';
import { decisionStatus, abstentionOf } from '../decisions/pipeline/decision-observer';
import { DecisionService } from '../decisions/pipeline/decision.service';

/** `system1_health`'s `metrics`: what this process decided since it started (each replica counts its own). */
export interface DecisionSummary {
  /** When counting started: the process's start, as an ISO time. */
  since: string;
  /** Pipeline calls: one per system1_decide or system1_ask call that reached it. */
  decisions: number;
  /** Calls with at least one failed question (no engine could answer, a broken config, ...). */
  errors: number;
  /** Questions that abstained: below the threshold, the engine's own abstention, or paused. */
  abstentions: number;
}

/** Counts every decision of the process, whatever surface asked, for the health tool's short summary. */
@Injectable()
export class DecisionTally {
  private readonly since = new Date().toISOString();
  private decisions = 0;
  private errors = 0;
  private abstentions = 0;

  constructor(decisions: DecisionService) {
    decisions.observe(({ outcome }) => {
      this.decisions++;
      if (decisionStatus(outcome) === 'error') this.errors++;
      for (const answer of Object.values(outcome.answers)) if (abstentionOf(answer) !== undefined) this.abstentions++;
    });
  }

  summary(): DecisionSummary {
    return { since: this.since, decisions: this.decisions, errors: this.errors, abstentions: this.abstentions };
  }
}
