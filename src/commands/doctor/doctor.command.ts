import { Command, CommandRunner, Option } from 'nest-commander';
import { OutputWriter } from '../output.writer';
import { type DoctorReport, DoctorService } from './doctor.service';

@Command({
  name: 'doctor',
  description:
    'the Troubleshoot questions from a shell: registered with Claude Code? does its command start? health, every ' +
    'engine probed? the last decisions? each with the fix to try; exit 1 when one fails',
})
export class DoctorCommand extends CommandRunner {
  constructor(
    private readonly doctor: DoctorService,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: { json?: boolean }): Promise<void> {
    const report = await this.doctor.run(process.env, process.cwd());
    if (flags.json) this.output.json(report);
    else this.output.out(render(report));
    if (!report.ok) this.output.fail(1);
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}

function render(report: DoctorReport): string[] {
  const lines: string[] = [];
  for (const { check, status, detail, fix } of report.checks) {
    lines.push(`${status.toUpperCase().padEnd(4)}  ${check.padEnd(10)} ${detail}`);
    if (fix) lines.push(`      ${''.padEnd(10)} fix: ${fix}`);
  }
  const failed = report.checks.filter((check) => check.status === 'fail').map((check) => check.check);
  lines.push('', failed.length === 0 ? 'Nothing failed.' : `Failed: ${failed.join(', ')}.`);
  return lines;
}
