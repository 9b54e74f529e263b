import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { type PullManifest, readManifest } from '../hub/pull-manifest';

export interface PulledModel {
  folder: string;
  manifest: PullManifest;
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !/\.(partial|old)$/.test(entry.name))
      .map((entry) => path.join(dir, entry.name));
  } catch {
    return [];
  }
}

/** The complete models under `models/` (`<owner>/<name>` or a bare `<name>`): the folders with a pull manifest. */
export function pulledModels(modelsDir: string): PulledModel[] {
  const candidates = subfolders(modelsDir).flatMap((folder) => [folder, ...subfolders(folder)]);
  return candidates.flatMap((folder) => {
    const manifest = readManifest(folder);
    return manifest ? [{ folder, manifest }] : [];
  });
}

/** The model pulled last, which `engine start` serves unless told another. */
export function latestPulledModel(modelsDir: string): PulledModel | undefined {
  return pulledModels(modelsDir).sort((a, b) => b.manifest.pulled_at.localeCompare(a.manifest.pulled_at))[0];
}
