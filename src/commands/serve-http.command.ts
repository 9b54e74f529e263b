import { Inject, Logger } from '@nestjs/common';
import { InvalidArgumentError } from 'commander';
import { Command, CommandRunner, Option } from 'nest-commander';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { CallerModels } from '../decisions/callers/caller-models.service';
import { HTTP_TOKEN_VARIABLE, HttpServeOptions, ServeHttpFlags, settleHttpOptions } from '../http-server/http-options';
import { gatewayLogger } from '../logging/gateway.logger';
import { logStrayRejections } from '../logging/process-failures';
import { wholeNumber } from './option-parsers';
import { OutputWriter } from './output.writer';
import { DecisionsApiParts } from './decisions-api-parts';
import { ServeHttpParts } from './serve-http-parts';

@Command({
  name: 'serve-http',
  description:
    'serve the System-1 tools over MCP Streamable HTTP at /mcp (stateless: any replica answers any request), ' +
    'the Decisions API at /v1/decisions and /v1/systemone, with /healthz, /readyz and /metrics',
})
export class ServeHttpCommand extends CommandRunner {
  private readonly logger = new Logger('Http');

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly parts: ServeHttpParts,
    private readonly callerModels: CallerModels,
    private readonly decisionsApi: DecisionsApiParts,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: ServeHttpFlags): Promise<void> {
    const settled = settleHttpOptions(this.config, flags, this.env);
    // Its callers are strangers holding a token: only the chain's models and those the operator lists.
    const problems = [...settled.problems, ...this.callerModels.forHttpCallers(), ...this.decisionsApi.problems()];
    const options = problems.length === 0 ? settled.options : undefined;
    if (!options) {
      for (const problem of problems) this.output.err(`system1 serve-http: ${problem}`);
      return this.output.fail(2);
    }
    // Other config problems are the tools' to report (system1_health, config_error answers) and /readyz's.
    for (const { message } of this.config.errors) this.output.err(`system1 serve-http: warning: ${message}`);
    // Required here, not imported: the HTTP transport and prom-client would slow every other command's start.
    const { startHttpServer } = require('../http-server/serve-http') as typeof import('../http-server/serve-http');
    logStrayRejections((line) => this.logger.error(line));
    let running;
    try {
      running = await startHttpServer(
        {
          ...this.parts.deps(
            (line) => this.logger.log(line),
            (line) => this.logger.warn(line),
          ),
          decisionsApi: this.decisionsApi.api((line) => this.logger.log(line)),
        },
        options,
      );
    } catch (error) {
      this.output.err(
        `system1 serve-http: cannot listen on ${options.host}:${options.port} ` +
          `(${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return this.output.fail(1);
    }
    const notes = [
      accessNote(options),
      options.allowedHosts.length > 0 ? `also answers to ${options.allowedHosts.join(', ')}` : '',
    ];
    this.output.err(`system1 serve-http: listening on ${running.url}; ${notes.filter(Boolean).join('; ')}`);
    gatewayLogger.linesPerTurn();

    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    this.logger.log(
      `${signal}: draining: no new connections, /readyz answers 503; ` +
        `answering the requests in flight (for at most ${running.drainBoundMs / 1000} s)`,
    );
    // A second signal is the user insisting: stop now.
    const insist = () => {
      this.logger.warn('stopped at once by a second signal');
      process.exit(1);
    };
    process.once('SIGINT', insist);
    process.once('SIGTERM', insist);
    const cutOff = await running.stop();
    if (cutOff > 0)
      this.logger.warn(`stopped with ${cutOff} request(s) unanswered after ${running.drainBoundMs / 1000} s`);
    else this.logger.log('drained: every request in flight was answered; stopping');
  }

  @Option({
    flags: '--host <address>',
    description: 'address to bind (default [http] host, 127.0.0.1; another needs SYSTEM1_HTTP_TOKEN)',
  })
  parseHost(value: string): string {
    return value;
  }

  @Option({ flags: '--port <n>', description: 'port to listen on (default [http] port, 8750; 0 picks a free one)' })
  parsePort(value: string): number {
    const port = wholeNumber(value);
    if (port > 65535) throw new InvalidArgumentError(`must be a port number from 0 to 65535, got ${value}`);
    return port;
  }
}

/** How callers authenticate, for the line that says where the server listens (names, never tokens). */
function accessNote(options: HttpServeOptions): string {
  const ways = [
    ...(options.tokens.none
      ? []
      : [
          `bearer tokens of ${options.tokens.names.length} caller(s): ` +
            `${options.tokens.names.join(', ')} (${HTTP_TOKEN_VARIABLE}[_<NAME>])`,
        ]),
    ...(options.oauth ? [`OAuth access tokens of ${options.oauth.issuer} for ${options.oauth.audience}`] : []),
  ];
  return ways.length > 0 ? ways.join(' or ') : 'no token (loopback only)';
}
