/** Ollama returns logprobs on `/api/chat` from this release on; older servers silently leave them out. */
export const OLLAMA_MIN_VERSION = '0.12.11';

/**
 * Whether an Ollama version string is at least {@link OLLAMA_MIN_VERSION}: true, false, or undefined when it
 * cannot tell (a development build reports `0.0.0`; an unknown format is not guessed at). A pre-release such
 * as `0.12.11-rc1` counts as its release.
 */
export function hasLogprobs(version: string): boolean | undefined {
  const parts = parseVersion(version);
  if (!parts || parts.every((part) => part === 0)) return undefined;
  const minimum = parseVersion(OLLAMA_MIN_VERSION)!;
  for (let i = 0; i < 3; i++) {
    if (parts[i] !== minimum[i]) return parts[i] > minimum[i];
  }
  return true;
}

function parseVersion(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** Ollama lists installed models with their tag (`llama3.2:latest`); a name without one means `:latest`. */
export function withTag(model: string): string {
  const lastSegment = model.slice(model.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? model : `${model}:latest`;
}
