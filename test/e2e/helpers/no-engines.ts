import { createServer } from 'node:net';
import type { Env } from './gateway';

/** A loopback port nothing listens on (taken, then freed). */
export function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Every local engine the installer's setup looks for, pointed at a closed port, so an install in a test never
 * depends on what runs on this machine's default ports; `extra` may point one at a fake instead.
 */
export async function noEngines(extra: Env = {}): Promise<Env> {
  const closed = `http://127.0.0.1:${await closedPort()}`;
  return {
    SYSTEM1_SYSTEMONE_ENDPOINT: closed,
    SYSTEM1_LAYA_ENDPOINT: closed,
    SYSTEM1_OLLAMA_ENDPOINT: closed,
    ...extra,
  };
}
