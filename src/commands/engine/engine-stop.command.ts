import { CommandRunner, SubCommand } from 'nest-commander';
import { RerankerHome } from '../../local-engines/reranker/reranker-home';
import { EngineProcessError, RerankerProcesses } from '../../local-engines/reranker/reranker-process.service';
import { OutputWriter } from '../output.writer';
import { unmanagedEngine } from './engine-name';

/** `system1 engine stop reranker`: stops the server `engine start` launched, and nothing else. */
@SubCommand({
  name: 'stop',
  arguments: '<engine>',
  description:
    'stop the local engine "system1 engine start" started (by its pid file, ' +
    'after checking the pid is still that server)',
})
export class EngineStopCommand extends CommandRunner {
  constructor(
    private readonly processes: RerankerProcesses,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([engine]: string[]): Promise<void> {
    const refused = unmanagedEngine(engine);
    if (refused) {
      this.output.err(`system1 engine stop: ${refused}`);
      return this.output.fail(2);
    }
    try {
      const outcome = await this.processes.stop(RerankerHome.of(process.env));
      if (outcome.kind === 'stopped')
        this.output.out(
          `Stopped the reranker (pid ${outcome.pid}${outcome.forced ? ', killed after it ignored SIGTERM' : ''}).`,
        );
      if (outcome.kind === 'not-running') this.output.out(`The reranker is not running: ${outcome.why}.`);
      if (outcome.kind === 'not-ours') {
        // Another program's command line is not ours to print: it may carry its own secrets.
        this.output.out(
          `The pid file named pid ${outcome.pid}, which is no longer the reranker but another program: ` +
            'left it alone and removed the stale pid file.',
        );
      }
    } catch (error) {
      if (!(error instanceof EngineProcessError)) throw error;
      this.output.err(`system1 engine stop: ${error.message}`);
      this.output.fail(1);
    }
  }
}
