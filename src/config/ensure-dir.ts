import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Creates a folder and its missing parents. Not `mkdirSync(dir, { recursive: true })`: on Node 20 that
 * spins forever when the kernel answers ENOENT for a parent that exists (under /proc, for one), which would
 * hang the server on a mistyped log_file.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  for (let current = path.resolve(dir); !existsSync(current); current = path.dirname(current)) {
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of missing) mkdirSync(folder);
}
