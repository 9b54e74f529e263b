import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository's root (the package's: schema/, package.json). */
export const ROOT = path.resolve(__dirname, '..', '..');

/** A JSON file of the repository, by its path from the root (`schema/request.json`). */
export function readJson(relative: string): Record<string, any> {
  return JSON.parse(readFileSync(path.join(ROOT, relative), 'utf8')) as Record<string, any>;
}
