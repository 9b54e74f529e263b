import { Command, CommandRunner } from 'nest-commander';
import { OutputWriter } from '../output.writer';
import { EnginePullCommand } from './engine-pull.command';
import { EngineStartCommand } from './engine-start.command';
import { EngineStopCommand } from './engine-stop.command';

/** `system1 engine pull|start|stop reranker`: a real local engine in two commands. */
@Command({
  name: 'engine',
  description:
    'a local engine in two commands: engine pull reranker [REPO] downloads an ONNX cross-encoder, ' +
    'engine start|stop reranker starts and stops it',
  subCommands: [EnginePullCommand, EngineStartCommand, EngineStopCommand],
})
export class EngineCommand extends CommandRunner {
  constructor(private readonly output: OutputWriter) {
    super();
  }

  async run(args: string[]): Promise<void> {
    const given = args[0] === undefined ? 'none' : JSON.stringify(args[0]);
    this.output.err(
      `system1 engine: expected pull, start or stop (as in: system1 engine pull reranker), got ${given}; ` +
        'see system1 engine --help',
    );
    this.output.fail(2);
  }
}
