import { renameSync, writeFileSync } from 'node:fs';
import { isRecord } from '../../common/is-record';
import { readRegularFileSync } from '../../common/regular-file';
import { ensureDir } from '../../config/ensure-dir';
import type { CooldownEntry, CooldownStore } from './cooldown.service';
import * as path from 'node:path';

const COOLDOWN_FILE_CAP = 1024 * 1024;

/**
 * Cooldowns in a small JSON file, for processes that live for one prompt (the routing hook). A missing or
 * unreadable file is no cooldown; a write that fails is dropped (a cooldown is an optimisation, never a
 * reason for a hook to fail). Written through a rename, so a reader never sees half a file.
 */
export class CooldownFile implements CooldownStore {
  constructor(private readonly file: string) {}

  get(key: string): CooldownEntry | undefined {
    const entries = this.read();
    return Object.hasOwn(entries, key) ? entries[key] : undefined;
  }

  set(key: string, entry: CooldownEntry | undefined): void {
    const { [key]: _old, ...rest } = this.read();
    this.write(entry ? { ...rest, [key]: entry } : rest);
  }

  read(): Record<string, CooldownEntry> {
    const entries: Record<string, CooldownEntry> = Object.create(null) as Record<string, CooldownEntry>;
    let parsed: unknown;
    try {
      // A FIFO planted there would block the hook past its budget; a cooldown file is a few hundred bytes.
      parsed = JSON.parse(readRegularFileSync(this.file, COOLDOWN_FILE_CAP));
    } catch {
      return entries;
    }
    if (!isRecord(parsed)) return entries;
    for (const [name, entry] of Object.entries(parsed)) {
      if (isRecord(entry) && Number.isFinite(entry.failures) && Number.isFinite(entry.until)) {
        // The trial mark too: without it a failed trial after a window would not cool the engine again.
        entries[name] = {
          failures: entry.failures as number,
          until: entry.until as number,
          ...(entry.trial === true && { trial: true }),
          // The backoff's step: without it a failure again would start over at the first, shortest window.
          ...(Number.isSafeInteger(entry.level) && (entry.level as number) > 1 && { level: entry.level as number }),
        };
      }
    }
    return entries;
  }

  write(entries: Record<string, CooldownEntry>): void {
    try {
      ensureDir(path.dirname(this.file));
      const staged = `${this.file}.${process.pid}`;
      writeFileSync(staged, JSON.stringify(entries), { mode: 0o600 });
      renameSync(staged, this.file);
    } catch {
      // No place to keep it: the next prompt simply asks the engine again.
    }
  }
}
