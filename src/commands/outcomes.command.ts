import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import { readFailureReason } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import type { Env } from '../config/paths';
import { labelSpawns, summariseOutcomes } from '../routing/outcomes';
import { appendLogLines } from '../routing/routing-log';
import { defaultProjectsDir, readLines, readSpawns, transcriptFiles } from '../routing/transcripts';
import { positiveNumber } from './option-parsers';
import { OutputWriter } from './output.writer';

interface OutcomeFlags {
  days: number;
  projectsDir?: string;
  apply?: boolean;
  json?: boolean;
}

@Command({
  name: 'outcomes',
  description: 'label every Agent spawn in your Claude Code transcripts failed or succeeded (totals only)',
})
export class OutcomesCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: OutcomeFlags): Promise<void> {
    const dir = flags.projectsDir ?? defaultProjectsDir(this.env);
    const since = Date.now() - flags.days * 86_400_000;
    const files = transcriptFiles(dir, since);
    // Spawns are read per session file: a subagent's own file carries its nested spawns.
    const labelled = files.flatMap((file) => labelSpawns(readSpawns(readLines(file))));
    const summary = {
      projects_dir: dir,
      days: flags.days,
      transcripts: files.length,
      ...summariseOutcomes(labelled),
      applied_to: null as string | null,
    };
    if (flags.apply && labelled.length > 0) {
      const ts = new Date().toISOString();
      const lines = labelled.map((l) => ({
        ts,
        source: 'outcome',
        tool_use_id: l.toolUseId,
        session_id: l.sessionId,
        model: l.model,
        resolved_model: l.resolvedModel,
        outcome: l.outcome,
        signal: l.signal,
        doubtful: l.doubtful,
      }));
      try {
        appendLogLines(this.config.routing.log_file, lines);
        summary.applied_to = this.config.routing.log_file;
      } catch (error) {
        this.output.err(
          `outcomes: cannot write the routing log ${this.config.routing.log_file} ` +
            `(${readFailureReason(error)}): no label was written; ` +
            "free space or fix the folder's permissions and run again",
        );
        this.output.fail();
      }
    }
    if (flags.json) return this.output.json(summary);
    const lines = [
      `outcomes: ${summary.spawns} Agent spawns in ${summary.transcripts} transcripts of the last ` +
        `${flags.days} days (${dir})`,
      `  ${
        Object.entries(summary.by_outcome)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }`,
      `  signals: ${
        Object.entries(summary.by_signal)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }`,
      `  by requested model: ${
        Object.entries(summary.by_model)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      }`,
      ...summary.doubtful.map(
        (d) => `  doubtful, please confirm: ${d.tool_use_id} (session ${d.session_id}, ${d.timestamp}, ${d.signal})`,
      ),
      summary.applied_to
        ? `Written to ${summary.applied_to}.`
        : 'Nothing written: --apply writes these labels into the routing log.',
    ];
    this.output.out(lines);
  }

  @Option({ flags: '--days <n>', description: 'how far back to read', defaultValue: 30 })
  parseDays(value: string): number {
    return positiveNumber(value);
  }

  @Option({ flags: '--projects-dir <dir>', description: "Claude Code's projects folder (default ~/.claude/projects)" })
  parseDir(value: string): string {
    return value;
  }

  @Option({ flags: '--apply', description: 'write the labels into the routing log' })
  parseApply(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}
