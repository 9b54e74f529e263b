import type { Server } from 'node:http';

/** At most one warning per period, however many connections are refused in it. */
const DROP_WARNING_EVERY_MS = 10_000;

/**
 * Connections past the cap (`server.maxConnections`) are closed as they arrive; one warning per period says how many.
 */
export function warnOnDrops(server: Server, cap: number, warn: (line: string) => void): void {
  let dropped = 0;
  let lastWarning = -Infinity;
  server.on('drop', () => {
    dropped++;
    if (Date.now() - lastWarning < DROP_WARNING_EVERY_MS) return;
    lastWarning = Date.now();
    warn(
      `closed ${dropped} new connection${dropped === 1 ? '' : 's'} at the connection cap (${cap}): ` +
        'that many clients are already connected',
    );
    dropped = 0;
  });
}
