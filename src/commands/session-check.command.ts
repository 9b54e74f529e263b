import { Inject } from '@nestjs/common';
import { Command, CommandRunner } from 'nest-commander';
import { readFileSync } from 'node:fs';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ConfigStatus } from '../decisions/config-status.service';
import { HealthService } from '../decisions/health.service';
import { OutputWriter } from './output.writer';

/** Logged prompts without labels after which calibration is worth suggesting. */
const PROMPTS_TO_LABEL = 30;

/**
 * Claude Code's SessionStart hook: one line when something needs the user (a broken config, routing on
 * with its engine down, prompts waiting to be labelled), nothing otherwise. Its own errors stay silent.
 */
@Command({ name: 'session-check', description: 'the Claude Code session-start check (one line when something needs you)' })
export class SessionCheckCommand extends CommandRunner {
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
    if (errors.length > 0) return this.output.out(`System-1's config is broken (${errors[0].message}); /system1:doctor helps fix it.`);
    if (!this.config.routing.enabled) return;
    const report = await this.health.health();
    const primary = report.providers[0];
    if (report.status === 'down' && primary) {
      return this.output.out(`System-1 routing is on but ${primary.name} is down (${primary.detail}); no hints until it is back. /system1:doctor helps.`);
    }
    const waiting = this.unlabelledPrompts();
    if (waiting >= PROMPTS_TO_LABEL) this.output.out(`${waiting} logged prompts are waiting for labels: /system1:calibrate fits System-1 to your work.`);
  }

  private unlabelledPrompts(): number {
    try {
      return readFileSync(this.config.routing.log_file, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"source":"routing"') && !line.includes('"labels"')).length;
    } catch {
      return 0;
    }
  }
}
