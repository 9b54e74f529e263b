import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The note a pull leaves in the model folder: where the files came from and what they are. Its presence marks
 * a complete, checked model (the staging folder gets it last, just before it takes the model folder's name);
 * `engine start` picks the most recently pulled model by it. It holds no token and no signed URL.
 */
export interface PullManifest {
  repo: string;
  /** The revision asked for (a branch, tag or commit). */
  revision: string;
  /** The commit it resolved to, when the Hub said (`X-Repo-Commit`). */
  commit?: string;
  /** The endpoint's origin (HF_ENDPOINT, or the Hub). */
  endpoint: string;
  variant: ModelVariant;
  files: { path: string; bytes: number; sha256: string; sha256_from_hub: boolean }[];
  /** ISO 8601. */
  pulled_at: string;
}

/** `float32`: what the server prefers; `quantized`: int8 weights, where the CPU runs them faster. */
export type ModelVariant = 'float32' | 'quantized';

/** Each variant's model file in a Hub repo's ONNX export, and the weights it holds. */
export const MODEL_FILE: Readonly<Record<ModelVariant, { path: string; weights: string }>> = {
  float32: { path: 'onnx/model.onnx', weights: 'float32' },
  quantized: { path: 'onnx/model_quantized.onnx', weights: 'int8' },
};

export const MANIFEST_FILE = 'system1-pull.json';

export function writeManifest(folder: string, manifest: PullManifest): void {
  writeFileSync(path.join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The folder's manifest, or undefined when there is none or it is not one we wrote. */
export function readManifest(folder: string): PullManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(folder, MANIFEST_FILE), 'utf8')) as PullManifest;
    return typeof manifest.repo === 'string' && typeof manifest.pulled_at === 'string' && Array.isArray(manifest.files)
      ? manifest
      : undefined;
  } catch {
    return undefined;
  }
}
