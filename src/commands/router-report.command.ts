import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { FILE_CAPS, readFailureCode, readFailureReason, readRegularFileSync } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { agreementReport, FEW_COMPARISONS } from '../openai-router/agreement-report';
import { fraction } from './option-parsers';
import { OutputWriter } from './output.writer';
import { percent } from './number-format';

interface ReportFlags {
  log?: string;
  target: number;
  json?: boolean;
}

const pct = (share: number | null) => percent(share, 1);

@Command({
  name: 'router-report',
  description: "read-only: the shadow log's agreement and fast share at candidate min_confidence thresholds",
})
export class RouterReportCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: ReportFlags): Promise<void> {
    const file = flags.log ?? this.config.router.shadow_log ?? '';
    let text: string;
    try {
      // A regular file only: a FIFO named by --log would wait for a writer forever.
      text = readRegularFileSync(file, FILE_CAPS.data);
    } catch (error) {
      const hint = readFailureCode(error) === 'ENOENT' ? '; run serve-openai with --shadow first' : '';
      this.output.err(`system1 router-report: cannot read the shadow log ${file} (${readFailureReason(error)})${hint}`);
      return this.output.fail(2);
    }
    const report = {
      log: file,
      current_min_confidence: this.config.router.min_confidence,
      ...agreementReport(text.split('\n'), flags.target),
    };
    if (flags.json) return this.output.json(report);
    const routes = Object.entries(report.by_route)
      .map(([route, n]) => `${route} ${n}`)
      .join(', ');
    const lines = [
      `router-report: ${report.records} requests in ` +
        `${file}${report.unreadable_lines ? ` (${report.unreadable_lines} unreadable lines skipped)` : ''}`,
      ...(report.slow_unavailable
        ? [
            `  ${report.slow_unavailable} of them had no slow answer to compare (too big, ` +
              'cut off or unreachable: see slow_unavailable in the log)',
          ]
        : []),
      `  as recorded at min_confidence ${report.current_min_confidence}: ${routes}`,
      '  threshold  fast share  fast  compared  agreement',
      ...report.rows.map(
        (row) =>
          `  ${row.threshold.toFixed(2).padStart(9)}  ${pct(row.fast_share).padStart(10)}  ` +
          `${String(row.fast).padStart(4)}  ${String(row.compared).padStart(8)}  ` +
          `${pct(row.agreement).padStart(9)}${row.compared < FEW_COMPARISONS && row.compared > 0 ? '  (few)' : ''}`,
      ),
      report.suggested
        ? `  lowest threshold with agreement >= ${pct(flags.target)}: ${report.suggested.threshold} ` +
          `(fast share ${pct(report.suggested.fast_share)}, ${report.suggested.compared} compared)`
        : `  no candidate threshold reaches agreement ${pct(flags.target)} yet`,
      '  Agreement means every field matched the slow model; it is not accuracy. ' +
        'Set [router] min_confidence to the threshold you pick.',
    ];
    this.output.out(lines);
  }

  @Option({ flags: '--log <file>', description: 'the shadow log (default [router] shadow_log)' })
  parseLog(value: string): string {
    return value;
  }

  @Option({
    flags: '--target <agreement>',
    description: 'the agreement a threshold must reach to be suggested',
    defaultValue: 0.95,
  })
  parseTarget(value: string): number {
    return fraction(value);
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}
