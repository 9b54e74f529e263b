import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { FILE_CAPS, readFailureReason, readRegularFileSync } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { jsonLine } from '../logging/json-lines';
import { routingLogProblem } from '../routing/evaluate';
import {
  applyLabels,
  countWaiting,
  exportLabelled,
  parseLabels,
  routedIds,
  waitingEntries,
} from '../routing/routing-labels';
import { ExportFile } from './export-file';
import { positiveNumber } from './option-parsers';
import { OutputWriter } from './output.writer';

const ACTIONS = ['list', 'apply', 'export'] as const;

interface LabelFlags {
  log?: string;
  limit?: number;
}

/**
 * The labelling loop of `/system1:calibrate`: `list` the routed prompts waiting for labels (JSON, with ids),
 * `apply` labels from a JSON or JSONL file (all checked first: one bad line and nothing is written), and
 * `export` the labelled prompts as calibration JSONL for `calibrate`. The rules are in routing-labels.ts.
 */
@Command({
  name: 'label',
  arguments: '<list|apply|export> [file]',
  description:
    'label logged routing prompts: list what waits (JSON), apply labels from FILE, ' +
    'export labelled prompts as calibration JSONL to FILE',
})
export class LabelCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([action, file]: string[], flags: LabelFlags): Promise<void> {
    const log = flags.log ?? this.config.routing.log_file;
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
      return this.stop(`expected list, apply or export, got ${JSON.stringify(action)}`, 2);
    if (action !== 'list' && !file) return this.stop(`${action} needs a file: system1 label ${action} FILE`, 2);
    if (action === 'list') return this.list(log, flags.limit);
    if (action === 'apply') return this.apply(log, file);
    return this.export(log, file);
  }

  private async list(log: string, limit = Number.POSITIVE_INFINITY): Promise<void> {
    const { waiting, problem } = countWaiting(log);
    if (problem) return this.stop(problem, 1);
    try {
      // Printed as read: what waits can be more than memory holds (list it in batches with --limit).
      await this.output.jsonWithItems({ log, waiting }, 'entries', waitingEntries(log, Math.min(limit, waiting)));
    } catch (error) {
      this.stop(routingLogProblem(log, error), 1);
    }
  }

  private apply(log: string, file: string): void {
    let text: string;
    try {
      text = readRegularFileSync(file, FILE_CAPS.data);
    } catch (error) {
      return this.stop(`cannot read ${file} (${readFailureReason(error)})`, 1);
    }
    const { ids, problem } = routedIds(log);
    if (problem) return this.stop(problem, 1);
    const { labels, problems } = parseLabels(text, ids);
    if (problems.length) {
      this.output.err([
        ...problems.map(({ line, problem }) => `${file}:${line}: ${problem}`),
        `label: nothing written: fix the ${problems.length} lines above and run again`,
      ]);
      return this.output.fail(1);
    }
    if (labels.size === 0)
      return this.stop(
        `${file} holds no labels: one {"id", "read_only", "design", "review", "specified", "tier"} per line`,
        1,
      );
    try {
      const written = applyLabels(log, labels);
      this.output.out(`Labelled ${written} routed prompts in ${log} (${labels.size} labels given).`);
    } catch (error) {
      this.stop(`cannot rewrite ${log} (${rewriteFailure(error)}): nothing written`, 1);
    }
  }

  private export(log: string, file: string): void {
    const output = new ExportFile(file);
    let result: ReturnType<typeof exportLabelled>;
    try {
      result = exportLabelled(log, (row) => output.write(jsonLine(row))); // escaped as the log: cat shows no escapes
      if (!result.problem) output.finish();
    } catch (error) {
      return this.stop(`cannot write ${file} (${readFailureReason(error)})`, 1);
    } finally {
      output.close();
    }
    if (result.problem) return this.stop(result.problem, 1);
    this.output.out(
      `Exported ${result.rows} calibration rows from ${result.prompts} labelled prompts to ${file}: system1 calibrate ${file}`,
    );
  }

  private stop(message: string, code: number): void {
    this.output.err(`system1 label: ${message}`);
    this.output.fail(code);
  }

  @Option({ flags: '--log <path>', description: 'the routing log (default: [routing] log_file)' })
  parseLog(value: string): string {
    return value;
  }

  @Option({
    flags: '--limit <n>',
    description: 'list: at most this many entries (a batch); `waiting` still counts them all',
  })
  parseLimit(value: string): number {
    return Math.floor(positiveNumber(value));
  }
}

/** Why a rewrite failed: the lock's and the retries' own words (they say what to do), else the read's reason. */
function rewriteFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ELOCKED' || code === 'EBUSY' ? (error as Error).message : readFailureReason(error);
}
