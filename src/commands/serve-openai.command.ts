import { Inject, Logger } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { placeholderProblem } from '../decisions/registry/placeholder';
import { ProviderRegistry } from '../decisions/registry/provider-registry.service';
import { OpenAiRouterService } from '../openai-router/openai-router.service';
import { ROUTER_TOKEN_VARIABLE, ServeFlags, settleRouterOptions } from '../openai-router/router-options';
import { DecisionsApiParts } from './decisions-api-parts';
import { wholeNumber } from './option-parsers';
import { OutputWriter } from './output.writer';

@Command({
  name: 'serve-openai',
  description:
    'an OpenAI-compatible endpoint: structured-output requests the fast engine can answer are answered by it, ' +
    'the rest go to the upstream untouched; /v1/decisions and /v1/systemone are answered by the engines',
})
export class ServeOpenAiCommand extends CommandRunner {
  /** The router's own lines go under this name too (OpenAiRouterService). */
  private readonly logger = new Logger('Router');

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly router: OpenAiRouterService,
    private readonly decisionsApi: DecisionsApiParts,
    private readonly registry: ProviderRegistry,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: ServeFlags): Promise<void> {
    const settled = settleRouterOptions(this.config, flags, this.env);
    // A broken [decisions.models] alias stops the router as it stops serve-http: both serve the same API.
    const problems = [...settled.problems, ...this.decisionsApi.problems()];
    const options = problems.length === 0 ? settled.options : undefined;
    if (!options) {
      for (const problem of problems) this.output.err(`system1 serve-openai: ${problem}`);
      return this.output.fail(2);
    }
    // Other config problems affect the fast engine only; its failures fall back to the upstream.
    for (const { message } of this.config.errors) this.output.err(`system1 serve-openai: warning: ${message}`);
    const fastOff = this.standInLine();
    if (fastOff) this.output.err(`system1 serve-openai: the fast path is off: ${fastOff}`);
    let running;
    try {
      running = await this.router.listen(
        { ...options, ...(fastOff && { fastOff: 'no fast engine: the config names the stand-in mock' }) },
        this.decisionsApi.api((line) => this.logger.log(line)),
      );
    } catch (error) {
      this.output.err(
        `system1 serve-openai: cannot listen on ${options.host}:${options.port} ` +
          `(${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return this.output.fail(1);
    }
    const notes = [
      `min_confidence ${options.minConfidence}`,
      fastOff ? 'fast path OFF, every request goes to the upstream' : '',
      options.shadow ? `shadow mode, log ${options.shadowLog}` : '',
      options.token ? `token required (${ROUTER_TOKEN_VARIABLE})` : '',
      options.allowedHosts ? `also answers to ${options.allowedHosts.join(', ')}` : '',
    ];
    this.output.err(
      `system1 serve-openai: listening on ${running.baseUrl}, ` +
        `upstream ${options.upstream.origin}${options.upstream.pathname.replace(/\/$/, '')}; ` +
        `${notes.filter(Boolean).join('; ')}`,
    );
    // nest-commander closes the app when run() returns: serve until asked to stop.
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await running.close();
  }

  /**
   * Why the fast path stays off, or undefined: the installer's stand-in would answer for the real model with
   * its made-up first option, above any threshold, and the caller could not tell.
   */
  private standInLine(): string | undefined {
    const names = this.registry.placeholders(this.registry.chain().map((member) => member.name));
    return names.length > 0 ? placeholderProblem(names) : undefined;
  }

  @Option({ flags: '--port <n>', description: 'port to listen on (default [router] port, 8788; 0 picks a free one)' })
  parsePort(value: string): number {
    return wholeNumber(value);
  }

  @Option({
    flags: '--host <address>',
    description: 'address to bind (default 127.0.0.1; anything else needs --allow-non-loopback)',
  })
  parseHost(value: string): string {
    return value;
  }

  @Option({ flags: '--allow-non-loopback', description: 'allow binding an address other machines can reach' })
  parseAllow(): boolean {
    return true;
  }

  @Option({
    flags: '--upstream <url>',
    description: "the slow model's OpenAI base URL (default https://api.openai.com/v1)",
  })
  parseUpstream(value: string): string {
    return value;
  }

  @Option({ flags: '--shadow', description: 'ask both, serve the slow answer and record agreement' })
  parseShadow(): boolean {
    return true;
  }
}
