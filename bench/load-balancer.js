// A real haproxy in front of `system1 serve-http` replicas on loopback, from examples/haproxy.cfg with the
// ports substituted, for test/e2e/serve-http-balanced.spec.ts (the short run) and bench/http.js (the
// figures). And the same for nginx's example, which the spec checks with `nginx -t`.
'use strict';
const { spawn } = require('node:child_process');
const { accessSync, constants, readFileSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');
const HAPROXY_EXAMPLE = path.join(ROOT, 'examples', 'haproxy.cfg');
const NGINX_EXAMPLE = path.join(ROOT, 'examples', 'nginx.conf');
/** The backend of the example, whose servers are the replicas. */
const BACKEND = 'system1_replicas';

/** An executable on PATH, or in the sbin dirs where Debian puts haproxy and nginx (not on a user's PATH). */
function findExecutable(name) {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A port nobody listens on now (the system picks it; free again once we close). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * examples/haproxy.cfg with this run's ports: the frontend on `frontendPort`, one `server` line per replica
 * port (the example's three replaced), and an admin socket at `statsSocket` to read server states from.
 * Throws when the example no longer has the lines it substitutes, so a change there cannot go untested.
 */
function haproxyConfig({ frontendPort, replicaPorts, statsSocket, template = readFileSync(HAPROXY_EXAMPLE, 'utf8') }) {
  const bind = /^(\s*)bind 127\.0\.0\.1:\d+$/m;
  const servers = /^(\s*)server replica\d+ 127\.0\.0\.1:\d+\n/gm;
  if (!bind.test(template)) throw new Error('examples/haproxy.cfg has no "bind 127.0.0.1:PORT" line to substitute');
  const found = template.match(servers) ?? [];
  if (found.length === 0)
    throw new Error('examples/haproxy.cfg has no "server replicaN 127.0.0.1:PORT" lines to substitute');
  const indent = /^\s*/.exec(found[0])[0];
  const ours = replicaPorts.map((port, i) => `${indent}server replica${i + 1} 127.0.0.1:${port}\n`).join('');
  let config = template.replace(bind, `$1bind 127.0.0.1:${frontendPort}`);
  config = config.replace(servers, (line) => (line === found[0] ? ours : ''));
  if (!/^global\n/m.test(config)) throw new Error('examples/haproxy.cfg has no global section');
  return config.replace(/^global\n/m, `global\n    stats socket ${statsSocket} mode 600 level admin\n`);
}

/** examples/nginx.conf with this run's ports and a prefix dir for its pid and temp files (so no root is needed). */
function nginxConfig({ frontendPort, replicaPorts, prefix, template = readFileSync(NGINX_EXAMPLE, 'utf8') }) {
  const listen = /^(\s*)listen 127\.0\.0\.1:\d+;$/m;
  const servers = /^(\s*)server 127\.0\.0\.1:\d+( [^;\n]*)?;\n/gm;
  if (!listen.test(template)) throw new Error('examples/nginx.conf has no "listen 127.0.0.1:PORT;" line to substitute');
  const found = template.match(servers) ?? [];
  if (found.length === 0)
    throw new Error('examples/nginx.conf has no "server 127.0.0.1:PORT ...;" lines to substitute');
  const [, indent, options = ''] = /^(\s*)server 127\.0\.0\.1:\d+( [^;\n]*)?;\n/.exec(found[0]);
  const ours = replicaPorts.map((port) => `${indent}server 127.0.0.1:${port}${options};\n`).join('');
  let config = template.replace(listen, `$1listen 127.0.0.1:${frontendPort};`);
  config = config.replace(servers, (line) => (line === found[0] ? ours : ''));
  // Everything the example keeps under /var and /run (and nginx's temp dirs) goes in the prefix dir.
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `    ${kind}_temp_path ${path.join(prefix, `${kind}-temp`)};\n`)
    .join('');
  return config
    .replace(/^pid .*;$/m, `pid ${path.join(prefix, 'nginx.pid')};`)
    .replace(
      /^(\s*)(error_log|access_log) [^ ;]+/gm,
      (_, indent, kind) => `${indent}${kind} ${path.join(prefix, `${kind}.log`)}`,
    )
    .replace(/^http \{\n/m, `http {\n${temp}`);
}

/** One admin-socket command's answer. */
function adminCommand(socket, command) {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let text = '';
    connection.setEncoding('utf8');
    connection.on('data', (chunk) => (text += chunk));
    connection.once('error', reject);
    connection.once('end', () => resolve(text));
    connection.write(`${command}\n`);
  });
}

/**
 * `show stat` as objects: one per frontend, backend and server (pxname, svname, status, stot, wretr, ...).
 * @param {string} socket
 * @returns {Promise<Record<string, string>[]>}
 */
async function haproxyStats(socket) {
  const [header, ...lines] = (await adminCommand(socket, 'show stat')).trim().split('\n');
  const names = header.replace(/^# /, '').split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i], value])));
}

/**
 * The replicas' states as haproxy sees them: { replica1: 'UP', replica2: 'DOWN', ... }
 * @param {string} socket
 * @returns {Promise<Record<string, string>>}
 */
async function serverStates(socket) {
  const rows = await haproxyStats(socket);
  return Object.fromEntries(
    rows.filter((row) => row.pxname === BACKEND && row.svname !== 'BACKEND').map((row) => [row.svname, row.status]),
  );
}

/**
 * Waits until haproxy's states satisfy `wanted(states)`; throws with the last states after `timeoutMs`.
 * @param {string} socket
 * @param {(states: Record<string, string>) => boolean} wanted
 */
async function waitForStates(socket, wanted, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  /** @type {Record<string, string>} */
  let states = {};
  for (;;) {
    try {
      states = await serverStates(socket);
      if (wanted(states)) return states;
    } catch {
      // the socket is not there yet
    }
    if (Date.now() > deadline)
      throw new Error(`haproxy's replicas never reached the state wanted: ${JSON.stringify(states)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * haproxy in the foreground on `configFile` (its log on stdout, kept); resolves once it runs. `stop()`
 * ends it and resolves with its exit.
 */
function startHaproxy(binary, configFile) {
  const child = spawn(binary, ['-f', configFile, '-db'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    child,
    output: () => output,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * `node dist/main.js serve-http --port PORT` (0: a free one) with `env`; resolves once it listens, with its
 * URL, its port, its access log so far, and `stop()` (SIGTERM, resolves on exit).
 */
function startReplica(env, port = 0, main = MAIN) {
  return startListening([main, 'serve-http', '--port', String(port)], env);
}

/** Spawns `node <args>` and resolves once it prints where it listens (`listening on http://.../mcp`). */
function startListening(args, env) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let started = false;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start:\n${stderr}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      // Looked for until found: at INFO a replica logs a line per request, and scanning the whole log again at
      // every chunk made this process (the client's) slower as the run went on.
      if (started) return;
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (!match) return;
      started = true;
      clearTimeout(timer);
      const stop = () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        return exited;
      };
      resolve({ url: match[1], port: Number(new URL(match[1]).port), pid: child.pid, log: () => stderr, stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`));
    });
  });
}

/** Writes `text` to `file` and returns the file. */
function writeConfig(file, text) {
  writeFileSync(file, text);
  return file;
}

module.exports = {
  BACKEND,
  HAPROXY_EXAMPLE,
  NGINX_EXAMPLE,
  findExecutable,
  freePort,
  haproxyConfig,
  nginxConfig,
  haproxyStats,
  serverStates,
  waitForStates,
  startHaproxy,
  startListening,
  startReplica,
  writeConfig,
};
