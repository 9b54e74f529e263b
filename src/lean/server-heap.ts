import { setFlagsFromString } from 'node:v8';

/**
 * The MCP server's heap policy, applied before its bundle is compiled: V8 accepts a code cache only under
 * the flags it was made with, and the build's training run goes through the same call. V8's defaults trade
 * memory for throughput: under 100 decisions in flight the young generation grew to 32 MB and the old
 * generation's limit to three times what was live, so RSS climbed by ~90 MB after warm-up (issue 7). The
 * sizes V8 fixes at start-up (--max-semi-space-size) cannot be changed from here, but these two are read at
 * every collection:
 * - the young generation stays at its initial 1 MB semi-spaces: a decision's garbage dies young anyway;
 * - the old generation may grow to 1.2x what is live before the next full collection (V8 picks 1.1-4x).
 * Measured with `npm run bench -- soak memory throughput` (bench/RESULTS.md): flat RSS, unchanged
 * decisions per second.
 */
export function applyServerHeapPolicy(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=20');
}
