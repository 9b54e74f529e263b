import { Command, CommandRunner } from 'nest-commander';
import { readRegularFileSync } from '../common/regular-file';
import { PauseState } from '../decisions/pipeline/pause-state.service';
import { OutputWriter } from './output.writer';

const ACTIONS = ['on', 'off', 'status'] as const;
/** The pause file holds one line we wrote; read no more of whatever else is there. */
const PAUSE_NOTE_CAP = 4096;

@Command({
  name: 'toggle',
  arguments: '<on|off|status>',
  description: 'resume (on) or pause (off) System-1 everywhere from the next call, no restart; or show the state',
})
export class ToggleCommand extends CommandRunner {
  constructor(
    private readonly pause: PauseState,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([action]: string[]): Promise<void> {
    if (!ACTIONS.includes(action as (typeof ACTIONS)[number])) {
      this.output.err(`system1 toggle: expected on, off or status, got ${JSON.stringify(action)}`);
      return this.output.fail(2);
    }
    try {
      if (action === 'off') this.pause.pause();
      if (action === 'on') this.pause.resume();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      this.output.err(
        `system1 toggle: cannot ${action === 'off' ? 'write' : 'remove'} the pause file ${this.pause.file} ` +
          `(${code}); System-1 was not switched ${action}`,
      );
      return this.output.fail(1);
    }
    const unshared = action === 'status' ? undefined : await this.pause.settled();
    if (unshared) this.output.err(`system1 toggle: warning: ${unshared}`);
    this.output.out(this.describe());
  }

  private describe(): string {
    if (!this.pause.isPaused()) return 'System-1 is on.';
    let since = '';
    try {
      since = ` (${readRegularFileSync(this.pause.file, PAUSE_NOTE_CAP).trim()})`;
    } catch {
      // gone between the check and the read (on again, as the next call shows), or not a file we wrote
    }
    return (
      `System-1 is paused${since}: system1_decide abstains until "system1 toggle on". ` +
      `Pause file: ${this.pause.file}`
    );
  }
}
