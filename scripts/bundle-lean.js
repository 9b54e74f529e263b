// Build step after tsc (npm run build): bundles each lean path (src/entrypoints/*.ts as compiled to dist/entrypoints/)
// into dist/bundle/<entry>.js with esbuild, then runs each bundle once the way clients run it, with
// SYSTEM1_WRITE_CODE_CACHE=1, so V8 writes the code cache of what start-up and a first answer compile.
// It bundles the compiled JavaScript, not the TypeScript: esbuild cannot emit the decorator metadata that
// Nest's injection reads.
'use strict';
const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const { readFile } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const path = require('node:path');
const esbuild = require('esbuild');
const { zodFailurePlugin } = require('./zod-failure-plugin');

const ROOT = path.resolve(__dirname, '..');
const MAIN = path.join(ROOT, 'dist', 'main.js');

/** Nest's optional integrations, required only by code the lean paths never reach (HTTP, microservices). */
const NEVER_LOADED = [
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/platform-express',
  '@nestjs/websockets/*',
];

/** Stamped on each bundle's first line: the loader offers a bundle only the code cache of its own build. */
const BUILD_ID = randomUUID();

function bundle(entry) {
  return esbuild.build({
    // Wrapped as the function the loader calls (what Node wraps a CommonJS file in), with the build id first.
    banner: { js: `/* system1 build ${BUILD_ID} */ (function (exports, require, module, __filename, __dirname) {` },
    footer: { js: '})' },
    entryPoints: [path.join(ROOT, 'dist', 'entrypoints', `${entry}.js`)],
    outfile: path.join(ROOT, 'dist', 'bundle', `${entry}.js`),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Class names are data here (DTO names key the JSON Schema definitions, logs name classes), so identifiers
    // keep their names: every module here is CommonJS, wrapped in a closure of its own, so none is renamed.
    // Not minifySyntax, which drops the name of a class assigned twice (tsc's `X = X_1 = class X`), nor
    // keepNames, which puts a `__name` call at every closure made: a twentieth of a busy server's time.
    minifyWhitespace: true,
    external: NEVER_LOADED,
    plugins: [withoutPhoneNumbers, nestClassNames, zodFailurePlugin],
    logLevel: 'warning',
  });
}

/**
 * class-validator requires libphonenumber-js (its metadata: ~9 MB of memory, tens of ms) for @IsPhoneNumber
 * alone, which no DTO here uses. The bundles get a stand-in that fails loudly if one ever does.
 */
const withoutPhoneNumbers = {
  name: 'without-phone-numbers',
  setup(build) {
    build.onResolve({ filter: /^libphonenumber-js(\/|$)/ }, () => ({
      path: 'libphonenumber-js',
      namespace: 'stand-in',
    }));
    build.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({
      contents:
        "exports.parsePhoneNumber = () => { throw new Error('@IsPhoneNumber is not available in the lean bundles (scripts/bundle-lean.js)'); };",
      loader: 'js',
    }));
  },
};

/**
 * esbuild declares a class that names itself as `var X = class _X`, so its `name` is `_X`. Nest names its
 * loggers so (`new Logger(InstanceLoader.name)`), and the gateway's logger keeps Nest's start-up lines off stderr
 * by those names. Nest's own files keep their names the way keepNames does; they run at start-up, not per request.
 */
const nestClassNames = {
  name: 'nest-class-names',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]@nestjs[\\/].*\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const { code } = await esbuild.transform(source, { keepNames: true, format: 'cjs', loader: 'js' });
      return { contents: code, loader: 'js' };
    });
  },
};

/** Runs `node dist/main.js <args>` with `input` on stdin in a throwaway home, so it writes the cache. */
function train(args, env, input) {
  const home = mkdtempSync(path.join(tmpdir(), 'system1-build-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, 'xdg'),
        SYSTEM1_INSTALL_DIR: path.join(home, 'install'),
        SYSTEM1_LOG_LEVEL: 'ERROR',
        SYSTEM1_WRITE_CODE_CACHE: '1',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    input(child);
    const timer = setTimeout(() => child.kill(), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
      if (code === 0) resolve();
      else reject(new Error(`training run of ${args.join(' ')} exited ${code}`));
    });
  });
}

/** An MCP session as clients open it: handshake, tool list, a decision, health; then stdin closes. */
function mcpSession(child) {
  const messages = [
    {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '0' } },
    },
    { method: 'notifications/initialized' },
    { id: 2, method: 'tools/list' },
    {
      id: 3,
      method: 'tools/call',
      params: { name: 'system1_decide', arguments: { question: 'Rerun or block?', options: ['rerun', 'block'] } },
    },
    { id: 4, method: 'tools/call', params: { name: 'system1_health', arguments: {} } },
  ];
  const expected = messages.filter((message) => message.id !== undefined).length;
  let replies = 0;
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    replies += chunk.split('\n').filter((line) => line.trim()).length;
    if (replies >= expected) child.stdin.end();
  });
  for (const message of messages) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
}

/**
 * A routing prompt against an engine that refuses the connection: the hook goes through config, providers,
 * the HTTP client and its error path, and stays silent.
 */
function routePrompt(child) {
  child.stdout.resume();
  child.stdin.end(
    JSON.stringify({
      session_id: 'build',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Design the architecture for the new billing service and decide between a queue and cron jobs',
    }),
  );
}

async function main() {
  const started = Date.now();
  await Promise.all([bundle('serve-mcp'), bundle('claude-hooks')]);
  await train(['mcp'], { SYSTEM1_PROVIDER: 'mock' }, mcpSession);
  await train(
    ['route-hook'],
    { SYSTEM1_PROVIDER: 'laya', SYSTEM1_LAYA_ENDPOINT: 'http://127.0.0.1:9', SYSTEM1_ROUTING_ENABLED: 'true' },
    routePrompt,
  );
  console.error(`bundled the lean paths with their code caches in ${Date.now() - started} ms`);
}

main().catch((error) => {
  console.error(`bundle-lean: ${error.stack ?? error.message}`);
  process.exitCode = 1;
});
