'use strict';
/**
 * A real redis-server (Debian's `redis-server`) for the shared-state tests and bench/state-store.js: on a free
 * loopback port, with its own temporary folder, no persistence, started and stopped by the caller. Never the
 * machine's own Redis, never beyond loopback.
 */
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { findExecutable, freePort } = require('./load-balancer');

/** The server binary, or undefined when it is not installed (`apt-get install redis-server`). */
const redisServerBinary = () => findExecutable('redis-server');

/** Resolves once something accepts connections on `port` (a PING answered), rejects after `timeoutMs`. */
function waitForPong(port, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = net.connect(port, '127.0.0.1');
      socket.setEncoding('utf8');
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (text) => {
        socket.destroy();
        // A server with a password answers NOAUTH: it is up all the same.
        if (text.startsWith('+PONG') || text.startsWith('-NOAUTH')) resolve();
        else retry();
      });
      socket.once('error', retry);
      function retry() {
        socket.destroy();
        if (Date.now() > until) reject(new Error(`redis-server did not answer on port ${port}`));
        else setTimeout(attempt, 50);
      }
    };
    attempt();
  });
}

/**
 * Starts redis-server on `port` (0: a free one) in its own folder. `kill()` sends SIGKILL (the test of a store
 * that goes away); `restart()` starts it again on the same port; `stop()` ends it and removes the folder.
 * @param {{ port?: number, binary?: string, args?: string[] }} [options]
 */
async function startRedis({ port = 0, binary = redisServerBinary(), args = [] } = {}) {
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const dir = mkdtempSync(path.join(tmpdir(), 'system1-redis-'));
  const chosen = port || (await freePort());
  let child;
  const launch = async () => {
    child = spawn(
      binary,
      ['--port', String(chosen), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args],
      { stdio: 'ignore' },
    );
    await waitForPong(chosen);
  };
  const ended = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    });
  await launch();
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    kill: async () => {
      child.kill('SIGKILL');
      await ended();
    },
    restart: launch,
    stop: async () => {
      child.kill('SIGKILL');
      await ended();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { redisServerBinary, startRedis };
