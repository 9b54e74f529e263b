import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createSystem1, type System1 } from '../../../src/library/create-system1';
import { type System1Options } from '../../../src/library/library-options';
import { eventually } from '../../helpers/eventually';

export const TYPESAFE_KEY = 'sk-test-LIBRARY-TYPESAFE-KEY-77';

/** A throwaway home, install dir and config file, so no test reads the user's config or fits. */
export class LibrarySandbox {
  readonly root = mkdtempSync(path.join(tmpdir(), 'system1-library-'));
  readonly installDir = path.join(this.root, 'install');
  readonly configFile = path.join(this.root, 'config.toml');
  readonly logs: string[] = [];
  private opened: System1[] = [];

  constructor() {
    mkdirSync(this.installDir);
  }

  async open(toml: string, env: Record<string, string> = {}, options: System1Options = {}): Promise<System1> {
    writeFileSync(this.configFile, toml);
    const system1 = await createSystem1({
      configFile: this.configFile,
      env: { HOME: this.root, SYSTEM1_INSTALL_DIR: this.installDir, SYSTEM1_TYPESAFE_API_KEY: TYPESAFE_KEY, ...env },
      logger: (line) => this.logs.push(line),
      ...options,
    });
    this.opened.push(system1);
    return system1;
  }

  async close(): Promise<void> {
    await Promise.all(this.opened.map((system1) => system1.close()));
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** The example of the spec: a yes/no, a choice and a score about one support message. */
export const THREE_QUESTIONS = {
  refund: { type: 'noul' as const, instructions: 'Is the user asking about a refund?' },
  topic: {
    type: 'choice' as const,
    instructions: 'Choose a topic.',
    criteria: { billing: 'Billing refund', technical: 'Technical support' },
  },
  urgency: { type: 'score' as const, instructions: 'Rate urgency.', criteria: ['Normal', 'Urgent', 'Critical'] },
};

/** A 1x1 PNG, for box questions. */
export const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Waits for something that follows a call (a request arriving, a socket closing); the limit only guards a hang. */
export const waitFor = eventually;
