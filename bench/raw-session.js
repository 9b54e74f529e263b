// A stdio session driven line by line (no SDK client), so every JSON-RPC reply is counted as it arrives:
// what the soak needs to prove nothing is lost or answered twice, and what start-up timing needs.
'use strict';
const { spawn } = require('node:child_process');

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
};

function rawSession(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  const seen = new Map();
  let buffer = '';
  let stray = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.trim()) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        stray += 1;
        continue;
      }
      seen.set(message.id, (seen.get(message.id) ?? 0) + 1);
      const resolve = waiting.get(message.id);
      if (resolve) {
        waiting.delete(message.id);
        resolve(message);
      }
    }
  });
  const request = (message) =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    });
  const ready = request(INITIALIZE).then(() =>
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'),
  );
  return {
    child,
    ready,
    request,
    /** Replies per JSON-RPC id, and lines on stdout that were not JSON. */
    counts: () => ({ seen, stray }),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.stdin.end();
        setTimeout(() => child.kill(), 2000).unref();
      }),
  };
}

const decide = (id, args) => ({ id, method: 'tools/call', params: { name: 'system1_decide', arguments: args } });

module.exports = { rawSession, decide, INITIALIZE };
