'use strict';
// Which engines this machine offers, for the installer's setup step: the local ones that answer (a short GET to
// this machine only), then the hosted ones whose key variable is set (looked at, never sent or shown).
// Each is a candidate: the provider and the settings the gateway needs to reach it. Whether it really works is
// the gateway's own smoke check's call (scripts/install/setup.js runs it), not this file's.
const http = require('node:http');

/** Per probe: an engine on this machine answers its health route in milliseconds. */
const PROBE_TIMEOUT_MS = 1500;
const MAX_BODY_BYTES = 1024 * 1024;
/** Setup probes only the names it knows are this machine (narrower than the gateway's rule, on purpose). */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];
const OLLAMA_DEFAULT_PORT = '11434';

/**
 * The local engines, in the order setup prefers them: the reranker or another System One server, laya-serve,
 * then an Ollama chat model (letter probabilities of a chat model need calibrating before they can be trusted).
 */
const LOCAL = [
  {
    provider: 'systemone',
    what: 'a System One server (the reranker, or llama-server with a decision model)',
    endpoint: 'http://127.0.0.1:8790',
    probe: healthProbe,
  },
  { provider: 'laya', what: 'laya-serve', endpoint: 'http://127.0.0.1:8765', probe: healthProbe },
  { provider: 'ollama', what: 'Ollama', endpoint: 'http://127.0.0.1:11434', probe: ollamaProbe },
];

/** Hosted engines: billed, and every request leaves the machine, so they come after any local one. */
const HOSTED = [
  { provider: 'anthropic', key: 'ANTHROPIC_API_KEY' },
  { provider: 'typesafe', key: 'SYSTEM1_TYPESAFE_API_KEY' },
  { provider: 'cloudflare', key: 'SYSTEM1_CLOUDFLARE_API_TOKEN', needs: 'account_id' },
];

/** Keys a user may have set that no provider reads, with why: said, so their absence from the list is not a surprise. */
const UNREAD_KEYS = {
  OPENAI_API_KEY:
    'the openai provider is for OpenAI-compatible servers with logprobs on this machine, and reads SYSTEM1_OPENAI_API_KEY',
};

/** GET `url` on loopback: `{ status, body }` (body parsed as JSON when it is), or `{ error }` in words. */
function get(url) {
  return new Promise((resolve) => {
    const request = http.get(
      url,
      { agent: false, timeout: PROBE_TIMEOUT_MS, headers: { accept: 'application/json' } },
      (response) => {
        const chunks = [];
        let size = 0;
        response.on('data', (chunk) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) return request.destroy(new Error('the answer is too large'));
          chunks.push(chunk);
        });
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body;
          try {
            body = JSON.parse(text);
          } catch (error) {
            body = undefined;
          }
          resolve({ status: response.statusCode, body });
        });
        response.on('error', (error) => resolve({ error: error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${PROBE_TIMEOUT_MS} ms`)));
    request.on('error', (error) =>
      resolve({ error: error.code === 'ECONNREFUSED' ? 'nothing listens there' : error.message }),
    );
  });
}

function routeOf(endpoint, route) {
  return `${endpoint.replace(/\/+$/, '')}${route}`;
}

/** laya-serve and System One servers (the reranker, llama-server) answer GET /health with {"status": "ok"}. */
async function healthProbe(endpoint, fetch) {
  const reply = await fetch(routeOf(endpoint, '/health'));
  if (reply.error) return { why: reply.error };
  if (reply.status !== 200 || !reply.body || reply.body.status !== 'ok')
    return { why: `GET /health answered ${reply.status}, not {"status": "ok"}` };
  return { settings: {} };
}

/** Ollama lists its models at GET /api/tags; the smallest chat model is the one to try (embedding models cannot chat). */
async function ollamaProbe(endpoint, fetch) {
  const reply = await fetch(routeOf(endpoint, '/api/tags'));
  if (reply.error) return { why: reply.error };
  const models = reply.status === 200 && reply.body && Array.isArray(reply.body.models) ? reply.body.models : undefined;
  if (!models) return { why: `GET /api/tags answered ${reply.status} without a model list: is this Ollama?` };
  const chat = models.filter((model) => model && typeof model.name === 'string' && !/embed/i.test(model.name));
  if (chat.length === 0) return { why: 'Ollama answers but has no chat model pulled (ollama pull gemma4:e4b)' };
  chat.sort((a, b) => (Number(a.size) || Infinity) - (Number(b.size) || Infinity));
  return { settings: { model: chat[0].name } };
}

/**
 * OLLAMA_HOST as Ollama's own client reads it (`host`, `host:port`, `:port`, `scheme://host[:port]`; port
 * 11434 without a scheme, the scheme's own with one), as an endpoint; "every interface" is reached on loopback.
 */
function ollamaHostEndpoint(value) {
  let text = value.trim();
  const schemeless = !/^[a-z]+:\/\//i.test(text);
  if (schemeless) text = `http://${text.startsWith(':') ? '127.0.0.1' : ''}${text}`;
  let url;
  try {
    url = new URL(text);
  } catch (error) {
    return undefined;
  }
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = '127.0.0.1';
  if (schemeless && url.port === '') url.port = OLLAMA_DEFAULT_PORT;
  return `${url.protocol}//${url.host}`;
}

/** Where a local engine is looked for, as the gateway would look: its env variable, the config file, its default. */
function endpointFor(engine, env, fileProviders) {
  const variable = `SYSTEM1_${engine.provider.toUpperCase()}_ENDPOINT`;
  if (env[variable]) return { endpoint: env[variable], from: variable };
  const own = fileProviders[engine.provider];
  if (own && typeof own.endpoint === 'string') return { endpoint: own.endpoint, from: 'the config' };
  if (engine.provider === 'ollama' && env.OLLAMA_HOST) {
    const endpoint = ollamaHostEndpoint(env.OLLAMA_HOST);
    if (endpoint) return { endpoint, from: 'OLLAMA_HOST' };
  }
  return { endpoint: engine.endpoint, from: 'its default' };
}

function isProbeable(endpoint) {
  try {
    const url = new URL(endpoint);
    return url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname.toLowerCase());
  } catch (error) {
    return false;
  }
}

/**
 * Probes the local engines (together, each with its timeout) and looks at the hosted engines' key variables.
 * @param {{ env: Record<string, string | undefined>, fileProviders?: Record<string, any>, fetch?: typeof get }} options
 * @returns {Promise<{ candidates: { provider: string, what: string, settings: Record<string, string>, hosted: boolean }[], notes: string[] }>}
 */
async function findEngines({ env, fileProviders = {}, fetch = get }) {
  const notes = [];
  const local = await Promise.all(
    LOCAL.map(async (engine) => {
      const { endpoint, from } = endpointFor(engine, env, fileProviders);
      if (!isProbeable(endpoint)) {
        notes.push(
          `${engine.what}: not probed at ${endpoint} (from ${from}): setup asks only http on 127.0.0.1, localhost or [::1]`,
        );
        return undefined;
      }
      const found = await engine.probe(endpoint, fetch);
      if (!found.settings) {
        notes.push(`${engine.what} at ${endpoint}: ${found.why}`);
        return undefined;
      }
      // written to the config when it is not the default, so clients that start the gateway without this
      // shell's variables find the engine too
      const settings = endpoint === engine.endpoint ? found.settings : Object.assign({ endpoint }, found.settings);
      return { provider: engine.provider, what: `${engine.what} at ${endpoint}`, settings, hosted: false };
    }),
  );
  const hosted = [];
  for (const engine of HOSTED) {
    if (!(env[engine.key] || '').trim()) continue;
    const own = fileProviders[engine.provider] || {};
    const variable = `SYSTEM1_${engine.provider.toUpperCase()}_${(engine.needs || '').toUpperCase()}`;
    if (engine.needs && !env[variable] && own[engine.needs] === undefined) {
      notes.push(
        `${engine.key} is set, but ${engine.provider} also needs ${engine.needs} (${variable}, or [providers.${engine.provider}] ${engine.needs}): not proposed`,
      );
      continue;
    }
    hosted.push({
      provider: engine.provider,
      what: `${engine.provider} (${engine.key} is set; billed, and requests leave this machine)`,
      settings: {},
      hosted: true,
    });
  }
  for (const key of Object.keys(UNREAD_KEYS))
    if ((env[key] || '').trim()) notes.push(`${key} is set, but no engine here reads it: ${UNREAD_KEYS[key]}`);
  return { candidates: local.filter(Boolean).concat(hosted), notes };
}

module.exports = { findEngines, ollamaHostEndpoint, get, LOCAL };
