import { Inject, Injectable } from '@nestjs/common';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LoadedConfig } from '../config/config.loader';
import { ensureDir } from '../config/ensure-dir';
import { system1Config } from '../config/system1.config';

/**
 * The pause switch is a file in the install dir, so `system1 toggle` in one process pauses every running
 * server from its next call, with no restart. Checking it is one stat per decision.
 */
@Injectable()
export class PauseState {
  readonly file: string;

  constructor(@Inject(system1Config.KEY) config: LoadedConfig) {
    this.file = path.join(config.installDir, 'paused');
  }

  isPaused(): boolean {
    return existsSync(this.file);
  }

  pause(): void {
    ensureDir(path.dirname(this.file));
    writeFileSync(this.file, `paused at ${new Date().toISOString()}\n`);
  }

  resume(): void {
    rmSync(this.file, { force: true });
  }
}
