import { Command, CommandRunner, Option } from 'nest-commander';
import { installedServerCommand, notInstalledReport, SmokeReport, SmokeService } from './smoke.service';
import { jsonLines, OutputWriter } from '../output.writer';

interface SmokeFlags {
  question?: string;
  options?: string[];
  json?: boolean;
  provider?: string;
  installed?: boolean;
}

@Command({
  name: 'smoke',
  description:
    'start the gateway as an MCP client does and check handshake, tools, health and optionally one decision ' +
    '(this build, or with --installed the copy clients are registered with)',
})
export class SmokeCommand extends CommandRunner {
  constructor(
    private readonly smoke: SmokeService,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: SmokeFlags): Promise<void> {
    if (flags.options && flags.question === undefined) {
      this.output.err('system1 smoke: --options needs --question');
      return this.output.fail(2);
    }
    const env = { ...(process.env as Record<string, string>) };
    if (flags.provider) env.SYSTEM1_PROVIDER = flags.provider;
    const installed = flags.installed ? installedServerCommand(env) : undefined;
    const report =
      installed && !installed.command
        ? notInstalledReport(installed.main)
        : await this.smoke.run({ command: installed?.command, question: flags.question, options: flags.options, env });
    if (flags.json) this.output.json(report);
    else this.output.out(render(report));
    if (!report.ok) this.output.fail(1);
  }

  @Option({ flags: '-q, --question <text>', description: 'also ask one question' })
  parseQuestion(value: string): string {
    return value;
  }

  @Option({ flags: '-o, --options <option...>', description: 'the options for --question (none = yes/no)' })
  parseOptions(value: string, previous: string[] = []): string[] {
    return [...previous, value];
  }

  @Option({ flags: '--provider <name>', description: 'run the server with SYSTEM1_PROVIDER set to this provider' })
  parseProvider(value: string): string {
    return value;
  }

  @Option({
    flags: '--installed',
    description:
      'check the installed copy ($SYSTEM1_INSTALL_DIR/app, what clients are registered with) instead of this build',
  })
  parseInstalled(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}

function render(report: SmokeReport): string[] {
  const lines = [`system1 smoke: ${report.command.join(' ')}`];
  for (const { layer, ok, detail } of report.layers)
    lines.push(`${ok ? 'PASS' : 'FAIL'}  ${layer.padEnd(9)} ${detail}`);
  if (report.server_stderr)
    lines.push('  server stderr (last lines):', ...report.server_stderr.map((line) => `    ${line}`));
  if (report.decision) lines.push('', ...jsonLines(report.decision));
  lines.push(
    '',
    report.ok ? 'All layers pass.' : `Stopped at the first failing layer: ${report.layers.at(-1)?.layer}.`,
  );
  return lines;
}
