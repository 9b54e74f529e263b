import type { Server } from 'node:http';

/** At most one warning per period, however many connections are refused in it. */
const DROP_WARNING_EVERY_MS = 10_000;

/**
 * Connections past the cap (`server.maxConnections`) are closed as they arrive; one warning per period says how
 * many. Drops after a warning are told when its period ends (or the server closes), so a burst is never
 * reported as its first connection alone.
 */
export function warnOnDrops(server: Server, cap: number, warn: (line: string) => void): void {
  let dropped = 0;
  let lastWarning = -Infinity;
  let pending: NodeJS.Timeout | undefined;
  const tell = () => {
    clearTimeout(pending);
    pending = undefined;
    if (dropped === 0) return;
    lastWarning = Date.now();
    warn(
      `closed ${dropped} new connection${dropped === 1 ? '' : 's'} at the connection cap (${cap}): ` +
        'that many clients are already connected',
    );
    dropped = 0;
  };
  server.on('drop', () => {
    dropped++;
    const wait = lastWarning + DROP_WARNING_EVERY_MS - Date.now();
    if (wait <= 0) return tell();
    // unref: a pending count never keeps the process alive.
    pending ??= setTimeout(tell, wait).unref();
  });
  server.on('close', tell);
}
