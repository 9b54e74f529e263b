import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { withoutHubToken } from '../../local-engines/hub/hub-endpoint';
import { EngineConfig, type ConfigOutcome } from '../../local-engines/reranker/engine-config.service';
import { TYPICAL_CANDIDATES } from '../../local-engines/reranker/engine-timeout';
import { describeTiming } from '../../local-engines/reranker/engine-timing';
import { RerankerHealth } from '../../local-engines/reranker/reranker-health';
import { latestPulledModel } from '../../local-engines/reranker/pulled-models';
import { RerankerHome } from '../../local-engines/reranker/reranker-home';
import { EngineProcessError, RerankerProcesses } from '../../local-engines/reranker/reranker-process.service';
import { wholeNumber, wholeNumberIn } from '../option-parsers';
import { OutputWriter } from '../output.writer';
import { unmanagedEngine } from './engine-name';
import { describeTimeout } from './timeout-report';

interface StartFlags {
  model?: string;
  port: number;
  device: string;
  shortlist?: number;
  maxCandidateTokens?: number;
}

const DEVICES = ['auto', 'cpu', 'cuda'];

/**
 * `system1 engine start reranker`: serves the most recently pulled model (or --model DIR) with the engine's
 * launcher, and once it answers /health points the user's config at it when the config had made no choice,
 * says what a decision costs by the engine's self-timing, and raises `[gateway] timeout_s` to cover one.
 */
@SubCommand({
  name: 'start',
  arguments: '<engine>',
  description:
    'start the local engine in the background on 127.0.0.1 with the most recently pulled model ' +
    '(or --model DIR), and point the config at it when it names no provider or the mock',
})
export class EngineStartCommand extends CommandRunner {
  constructor(
    private readonly processes: RerankerProcesses,
    private readonly config: EngineConfig,
    private readonly health: RerankerHealth,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([engine]: string[], flags: StartFlags): Promise<void> {
    const refused = unmanagedEngine(engine);
    if (refused) return this.stop(refused, 2);
    const env = process.env;
    const home = RerankerHome.of(env);
    if (!home.installed)
      return this.stop(
        `the reranker is not installed in ${home.dir}: ` +
          `run "system1 engine pull reranker" first (it installs the engine's packages and a model)`,
        1,
      );
    const model = this.model(home, flags.model);
    if (!model) return;
    let port: number;
    try {
      const outcome = await this.processes.start(home, {
        model: model.folder,
        port: flags.port,
        device: flags.device,
        shortlist: flags.shortlist,
        maxCandidateTokens: flags.maxCandidateTokens,
        env: withoutHubToken(env),
      });
      switch (outcome.kind) {
        case 'already-running':
          this.output.out(
            `The reranker started earlier still runs (pid ${outcome.record.pid}, ${outcome.record.model}); ` +
              '"system1 engine stop reranker" first to start another.',
          );
          port = outcome.record.port;
          break;
        case 'port-has-reranker':
          this.output.out(
            `A reranker already answers on http://127.0.0.1:${outcome.port} ` +
              `(${outcome.model ?? 'its model unnamed'}; not started by this command): left it alone.`,
          );
          port = outcome.port;
          break;
        case 'loading':
          this.output.out([
            `The reranker (pid ${outcome.pid}) is still loading ${model.folder}; ` +
              `it will serve on http://127.0.0.1:${outcome.port}. Log: ${home.log}`,
            'Run "system1 engine start reranker" again once it serves, to point the config at it.',
          ]);
          return;
        case 'started':
          this.output.out(
            `The reranker serves on http://127.0.0.1:${outcome.port} (pid ${outcome.pid}). Log: ${home.log}. ` +
              'Stop it with: system1 engine stop reranker',
          );
          port = outcome.port;
      }
    } catch (error) {
      if (!(error instanceof EngineProcessError)) throw error;
      this.output.err([`system1 engine start: ${error.message}`, ...error.details.map((line) => `  ${line}`)]);
      return this.output.fail(1);
    }
    const pointed = this.config.pointAt(`http://127.0.0.1:${port}`, env);
    this.output.out(describeConfig(pointed));
    this.output.out(await this.timingAndTimeout(port, pointed, env));
  }

  /**
   * What the engine's self-timing (its /health) says a decision costs, and `[gateway] timeout_s` raised to
   * cover a typical one (engine-timeout.ts), or the line to add where the config is the user's to change.
   */
  private async timingAndTimeout(port: number, pointed: ConfigOutcome, env: NodeJS.ProcessEnv): Promise<string[]> {
    const { timing } = await this.health.check(port);
    if (!timing)
      return [
        "The engine's /health reports no self-timing (an engine from before it timed itself?): " +
          '[gateway] timeout_s was left as it is.',
      ];
    const outcome = this.config.coverTimeout(timing.predicted_ms[TYPICAL_CANDIDATES], pointed, env);
    return [...describeTiming(timing), ...describeTimeout(outcome, timing)];
  }

  /** The model folder to serve, said aloud; undefined (with the reason printed) when there is none. */
  private model(home: RerankerHome, given: string | undefined): { folder: string } | undefined {
    if (given !== undefined) {
      const folder = path.resolve(given);
      if (!existsSync(folder) || !statSync(folder).isDirectory())
        return this.stop(`--model ${folder} is not a folder`, 1);
      this.output.out(`Model: ${folder} (from --model)`);
      return { folder };
    }
    const latest = latestPulledModel(home.models);
    if (!latest)
      return this.stop(
        `no model has been pulled into ${home.models}: run "system1 engine pull reranker" (or pass --model DIR)`,
        1,
      );
    const { repo, commit, revision, variant, pulled_at } = latest.manifest;
    this.output.out(
      `Model: ${latest.folder} (the most recently pulled: ` +
        `${repo} at ${commit ? commit.slice(0, 12) : revision}, ${variant}, pulled ${pulled_at})`,
    );
    return { folder: latest.folder };
  }

  private stop(message: string, code: number): undefined {
    this.output.err(`system1 engine start: ${message}`);
    this.output.fail(code);
    return undefined;
  }

  @Option({ flags: '--model <dir>', description: 'serve this model folder instead of the most recently pulled one' })
  parseModel(value: string): string {
    return value;
  }

  @Option({ flags: '--port <n>', description: 'the port on 127.0.0.1 (0: any free port)', defaultValue: 8790 })
  parsePort(value: string): number {
    const port = wholeNumber(value);
    if (port > 65535) throw new InvalidArgumentError(`must be a port from 0 to 65535, got ${value}`);
    return port;
  }

  @Option({ flags: '--device <device>', description: 'auto, cpu or cuda', defaultValue: 'auto' })
  parseDevice(value: string): string {
    if (!DEVICES.includes(value)) throw new InvalidArgumentError(`must be auto, cpu or cuda, got ${value}`);
    return value;
  }

  @Option({
    flags: '--shortlist <k>',
    description:
      'score a choice of more than K options by words first and ask the model about the K likeliest only ' +
      '(off by default: it can drop the right option; engines/reranker/README.md)',
  })
  parseShortlist(value: string): number {
    return wholeNumberIn(value, 2, SHORTLIST_MAX);
  }

  @Option({
    flags: '--max-candidate-tokens <n>',
    description: "cut each option's description to its first N tokens (the engine's default: 512)",
  })
  parseMaxCandidateTokens(value: string): number {
    return wholeNumberIn(value, 1, 1_000_000);
  }
}

/** The most options the engine takes in one request (engines/reranker/lib/limits.js): a larger K shortlists nothing. */
const SHORTLIST_MAX = 256;

/** What happened to the config, in lines; the lines to add are printed as they go into the file. */
function describeConfig(outcome: ConfigOutcome): string[] {
  const note = outcome.note ? [`Note: ${outcome.note}.`] : [];
  if (outcome.kind === 'already') return [`The config ${outcome.file} already uses it.`, ...note];
  if (outcome.kind === 'set') {
    const before = outcome.before === undefined ? 'named no provider' : `used the provider "${outcome.before}"`;
    return [
      `The config ${outcome.file} ${before}: set [gateway] provider = "systemone" and [providers.systemone] ` +
        'endpoint to the reranker. Check with: system1 smoke',
      ...note,
    ];
  }
  return [
    `The config ${outcome.file} was left as it is (${outcome.why}). To use the reranker, set these lines in it:`,
    ...outcome.lines.map((line) => `  ${line}`),
    ...note,
  ];
}
