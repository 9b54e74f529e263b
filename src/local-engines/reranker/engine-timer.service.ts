import { Injectable } from '@nestjs/common';
import { ProcessRunner } from '../process/process-runner';
import { type EngineTiming, readEngineTiming } from './engine-timing';
import type { RerankerHome } from './reranker-home';

export type TimerOutcome = { kind: 'timed'; timing: EngineTiming } | { kind: 'failed'; why: string };

/**
 * Runs the installed engine's self-timing (`time.js --model DIR --json`) on a pulled model, as the launcher
 * runs the engine: this Node, from the engine's folder, with the environment it is given (the caller drops
 * HF_TOKEN, as for the launcher), on the device `engine start` picks by default (auto). It never throws for a
 * timing that failed: the model is pulled whatever its timing says.
 */
@Injectable()
export class EngineTimer {
  constructor(private readonly runner: ProcessRunner) {}

  async time(home: RerankerHome, model: string, env: NodeJS.ProcessEnv): Promise<TimerOutcome> {
    const run = await this.runner.run(process.execPath, [home.timer, '--model', model, '--json'], {
      cwd: home.dir,
      env,
      capture: true,
    });
    if (run.code !== 0) {
      const said = run.stderr.trim().split('\n').at(-1) ?? '';
      return { kind: 'failed', why: `${home.timer} exited ${run.code ?? 'by a signal'}${said ? `: ${said}` : ''}` };
    }
    let document: unknown;
    try {
      document = JSON.parse(run.stdout);
    } catch {
      return { kind: 'failed', why: `${home.timer} printed no JSON document` };
    }
    const timing = readEngineTiming(document);
    return timing
      ? { kind: 'timed', timing }
      : { kind: 'failed', why: `${home.timer} printed a document without the timing's fields` };
  }
}
