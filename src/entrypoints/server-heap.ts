import { setFlagsFromString } from 'node:v8';

/**
 * The MCP server's heap policy. The sizes V8 fixes at start-up (--max-semi-space-size) cannot be changed
 * from inside the process, but these flags are read at every collection. V8 accepts a code cache only under
 * the flags in force when it was written, and the build writes it as its training session exits, after
 * serving: so the flags at compile time are those of serving.
 * Measured with `npm run bench -- memory soak throughput` (bench/RESULTS.md).
 */
export const serverHeap = {
  /**
   * For the process's life, before the bundle compiles: the old generation may grow to 1.5x what is live
   * before the next full collection. V8 picks 1.1-4x by itself; under 100 decisions in flight that came to
   * ~90 MB more RSS after a warm-up (issue 7). At 1.2x (V8's floor of 8 MB more, for a ~25 MB heap) a busy
   * server ran a full collection every ~1,000 decisions, ~15% of its CPU at 64 in flight (issue 40).
   */
  beforeCompile: (): void => {
    setFlagsFromString('--heap-growing-percent=50');
  },
  /**
   * While the modules load: the young generation stays at its initial 1 MB semi-spaces. What start-up
   * allocates survives anyway, and a young generation grown for it stays committed, empty, at idle: this
   * step is ~7 MB of idle RSS (issue 8's 80 MB). It also costs ~18% of the mock's decisions per second at 64
   * in flight afterwards, for a reason not found yet (the young generation does grow back under load);
   * without it the server keeps the previous build's throughput and idles at ~84 MB.
   */
  whileStarting: (): void => {
    setFlagsFromString('--semi-space-growth-factor=1');
  },
  /** Once serving: V8's own young-generation growth again, for throughput under load. */
  serving: (): void => {
    setFlagsFromString('--semi-space-growth-factor=2');
  },
};
