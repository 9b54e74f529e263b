import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Creates a folder and its missing parents. Not `mkdirSync(dir, { recursive: true })`: on Node 20 that
 * spins forever when the kernel answers ENOENT for a parent that exists (under /proc, for one), which would
 * hang the server on a mistyped log_file. `mode` applies to the folders it creates (less the umask); folders
 * that already exist are left as they are.
 */
export function ensureDir(dir: string, mode = 0o777): void {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing) mkdirSync(folder, { mode });
}

/** For folders of logs, which hold prompts, questions and request ids: only the user may list or read them. */
export function ensurePrivateDir(dir: string): void {
  ensureDir(dir, 0o700);
}
