import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import type { Env } from '../config/paths';
import { PROCESS_ENV } from '../config/system1.config';
import { defaultProjectsDir, transcriptFiles } from '../routing/transcripts';
import { readPrices, SHIPPED_PRICES, usageReport } from '../routing/usage-report';
import { positiveNumber } from './option-parsers';
import { OutputWriter } from './output.writer';
import { percent } from './number-format';

interface UsageFlags {
  days: number;
  projectsDir?: string;
  prices?: string;
  json?: boolean;
}

@Command({
  name: 'usage-report',
  description:
    'read-only: hint reach, adherence, subagent cost by tier and savings, from your transcripts (totals only)',
})
export class UsageReportCommand extends CommandRunner {
  constructor(
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: UsageFlags): Promise<void> {
    const dir = flags.projectsDir ?? defaultProjectsDir(this.env);
    let prices;
    try {
      prices = readPrices(flags.prices ?? SHIPPED_PRICES);
    } catch (error) {
      this.output.err(`system1 usage-report: ${(error as Error).message}`);
      return this.output.fail(2);
    }
    const report = {
      projects_dir: dir,
      days: flags.days,
      prices: flags.prices ?? SHIPPED_PRICES,
      ...usageReport(transcriptFiles(dir, Date.now() - flags.days * 86_400_000), prices),
    };
    if (flags.json) return this.output.json(report);
    const usd = (n: number) => `$${n.toFixed(4)}`;
    this.output.out([
      `usage-report: ${report.transcripts} sessions and ${report.subagent_transcripts} subagent runs ` +
        `in the last ${flags.days} days (${dir})`,
      `  hints on ${report.hints} of ${report.prompts} prompts (${percent(report.hint_rate)}); ` +
        `${report.spawns_after_hint} spawns after a hint, ${percent(report.adherence)} on the hinted tier`,
      `  subagent cost by tier (API list prices): haiku ${usd(report.subagent_cost_usd_by_tier.haiku)}, ` +
        `sonnet ${usd(report.subagent_cost_usd_by_tier.sonnet)}, opus ${usd(report.subagent_cost_usd_by_tier.opus)}`,
      `  savings: realised ${usd(report.savings_usd.realised)}, missed ${usd(report.savings_usd.missed)}; ` +
        `hint overhead ${usd(report.hint_overhead.usd)} (${report.hint_overhead.characters} characters)`,
      '  A Claude Code subscription bills differently: these figures compare tiers, they are not your bill.',
    ]);
  }

  @Option({ flags: '--days <n>', description: 'how far back to read', defaultValue: 14 })
  parseDays(value: string): number {
    return positiveNumber(value);
  }

  @Option({ flags: '--projects-dir <dir>', description: "Claude Code's projects folder (default ~/.claude/projects)" })
  parseDir(value: string): string {
    return value;
  }

  @Option({ flags: '--prices <file>', description: 'a prices file like routing/prices.json' })
  parsePrices(value: string): string {
    return value;
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}
