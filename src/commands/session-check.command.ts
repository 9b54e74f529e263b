import { Inject, Logger } from '@nestjs/common';
import { Command, CommandRunner } from 'nest-commander';
import { isRecord } from '../common/is-record';
import { readLinesSync, type LineReadStats } from '../common/line-reader';
import { readFailureCode, readFailureReason } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { HealthService } from '../decisions/pipeline/health.service';
import { isWaitingForLabels } from '../routing/routing-labels';
import { ROUTING_LIMITS } from '../routing/routing-limits';
import { OutputWriter } from './output.writer';

/** Logged prompts without labels after which calibration is worth suggesting. */
const PROMPTS_TO_LABEL = 30;

/**
 * Claude Code's SessionStart hook: one line when something needs the user (a broken config, routing on
 * with its engine down, prompts waiting to be labelled), nothing otherwise. Its own errors stay off stdout
 * (stderr says what they were).
 */
@Command({
  name: 'session-check',
  description: 'the Claude Code session-start check (one line when something needs you)',
})
export class SessionCheckCommand extends CommandRunner {
  private readonly logger = new Logger('SessionCheck');

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly configStatus: ConfigStatus,
    private readonly health: HealthService,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(): Promise<void> {
    const errors = this.configStatus.errors();
    if (errors.length > 0)
      return this.output.out(`System-1's config is broken (${errors[0].message}); /system1:doctor helps fix it.`);
    if (!this.config.routing.enabled) return;
    const report = await this.health.health();
    const primary = report.providers[0];
    if (report.status === 'down' && primary) {
      return this.output.out(
        `System-1 routing is on but ${primary.name} is down (${primary.detail}); no hints until it is back. ` +
          '/system1:doctor helps.',
      );
    }
    const waiting = this.unlabelledPrompts();
    if (waiting.count >= PROMPTS_TO_LABEL) {
      this.output.out(
        `${waiting.partial ? 'At least ' : ''}${waiting.count} logged prompts are waiting for labels: ` +
          '/system1:calibrate fits System-1 to your work.',
      );
    }
  }

  /**
   * Entries waiting for labels (by the rule `system1 label list` lists by) in the log's last part (the
   * hook's budget is 10 s, and a log can be gigabytes): `partial` when the log began before it, so the
   * count is a floor.
   */
  private unlabelledPrompts(): { count: number; partial: boolean } {
    const file = this.config.routing.log_file;
    const stats: LineReadStats = { skipped: 0, partial: false };
    let count = 0;
    try {
      for (const line of readLinesSync(
        file,
        { maxLineBytes: ROUTING_LIMITS.logLineBytes, tailBytes: ROUTING_LIMITS.sessionCheckTailBytes },
        stats,
      )) {
        if (line.includes('"routing"') && isWaitingForLabels(parsedEntry(line))) count += 1;
      }
    } catch (error) {
      if (readFailureCode(error) !== 'ENOENT')
        this.logger.warn(`cannot read the routing log ${file} (${readFailureReason(error)})`);
      return { count: 0, partial: false };
    }
    return { count, partial: stats.partial };
  }
}

/** A log line's entry, or an empty one for a line cut off at a crash. */
function parsedEntry(line: string): Record<string, unknown> {
  try {
    const entry = JSON.parse(line) as unknown;
    return isRecord(entry) ? entry : {};
  } catch {
    return {};
  }
}
