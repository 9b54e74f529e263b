'use strict';
/**
 * The System One server over a Reranker: `POST /v1/systemone` and a public `GET /health` (also
 * `/v1/health`), with llama-server's error body `{"error":{"code","message","type"}}` (wire-contracts
 * §1.4 D), so the gateway's `systemone` provider reads it as it reads llama-server.
 */
const http = require('node:http');
const LIMITS = require('./limits');
const { HttpError, checkHost, checkToken, readBody, parseJson } = require('./http-guards');
const { RequestError } = require('./request');
const { BusyError } = require('./reranker');
const { answerEarly, inviteBody } = require('./early-answer');

const HOST = '127.0.0.1';

function send(response, status, body, headers = {}) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** An error answer; one sent before the body was read (a refusal, a body over the cap) drains it first. */
function sendError(request, response, error, log) {
  if (error instanceof RequestError) error = new HttpError(400, 'invalid_request_error', error.message);
  if (error instanceof BusyError)
    error = new HttpError(429, 'rate_limit_error', `the model is busy: ${error.message}; try again shortly`, {
      'retry-after': '1',
    });
  if (!(error instanceof HttpError)) {
    log(`decision failed: ${error.stack ?? error}`);
    error = new HttpError(
      500,
      'server_error',
      `the model run failed: ${String(error.message ?? error).split('\n')[0]}`,
    );
  }
  answerEarly(
    request,
    response,
    error.status,
    JSON.stringify({ error: { code: error.status, message: error.message, type: error.type } }),
    error.headers,
  );
}

/**
 * What /health says: the model is loaded (the server listens only after that), what it answers, and (when
 * the engine timed itself at start, lib/self-timing.js) what a decision costs on this machine.
 */
function healthBody(reranker, timing) {
  const { model } = reranker;
  return {
    status: 'ok',
    model: model.name,
    device: model.device,
    max_length: model.maxLength,
    max_candidate_tokens: reranker.maxCandidateTokens,
    shortlist: reranker.shortlist
      ? {
          top_k: reranker.shortlist.topK,
          how: 'a choice over more options than top_k: BM25 over words picks top_k for the model to score; the rest get probability 0, and the confidence is over the top_k',
        }
      : false,
    ...(timing && { timing }),
    limits: {
      max_questions: LIMITS.maxQuestions,
      max_options: LIMITS.maxOptions,
      max_levels: LIMITS.maxLevels,
      max_body_bytes: LIMITS.maxBodyBytes,
    },
    capabilities: {
      choice: { supported: true },
      noul: {
        supported: true,
        how: 'a two-candidate choice between the "true" and "false" descriptions ("yes" and "no" when absent): near chance unless they say something the text can match',
      },
      score: { supported: true, how: 'each level description is a candidate; score is the expected level' },
      box: { supported: false },
      images: { supported: false },
    },
  };
}

/** One line per decision: the question ids, the pairs and tokens scored and the time taken (no texts). */
function decisionLine({ reply, pairs }, started) {
  const ids = Object.keys(reply.answers).map((id) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}...` : id));
  return `decision: ${ids.length} question(s) ${ids.join(', ')}; ${pairs} pairs, ${reply.usage.input_tokens} tokens, ${(performance.now() - started).toFixed(1)} ms`;
}

/**
 * An http.Server (not yet listening) for `reranker`; `apiKey` (from SYSTEM1_SYSTEMONE_API_KEY) makes
 * decisions require a bearer token. /health stays public, as llama-server's does. The Host must name the
 * port the request came in on. `logDecisions` passes one line per decision to `log`. `timing`, the engine's
 * self-timing, goes into /health.
 */
function createServer({ reranker, timing, apiKey, log = (line) => console.error(line), logDecisions = false }) {
  const handle = async (request, response) => {
    try {
      checkHost(request, request.socket.localPort);
      const route = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
      if (route === '/health' || route === '/v1/health') {
        if (request.method !== 'GET' && request.method !== 'HEAD')
          throw new HttpError(405, 'invalid_request_error', `${route} takes GET`, { allow: 'GET' });
        send(response, 200, healthBody(reranker, timing));
        return;
      }
      if (route !== '/v1/systemone')
        throw new HttpError(
          404,
          'not_found_error',
          `no route ${JSON.stringify(route.slice(0, 100))}: decisions are POST /v1/systemone, health GET /health`,
        );
      if (request.method !== 'POST')
        throw new HttpError(405, 'invalid_request_error', '/v1/systemone takes POST', { allow: 'POST' });
      checkToken(request, apiKey);
      const started = performance.now();
      const body = parseJson(await readBody(request, LIMITS.maxBodyBytes, () => inviteBody(request, response)));
      const decided = await reranker.answer(body);
      send(response, 200, decided.reply);
      if (logDecisions) log(decisionLine(decided, started));
    } catch (error) {
      // An answer already under way cannot be replaced by an error: the connection is cut instead.
      if (response.headersSent) response.destroy();
      else sendError(request, response, error, log);
    }
  };
  const server = http.createServer(handle);
  // Node would answer 100 Continue before the handler runs; the handler invites the body only when it reads it.
  server.on('checkContinue', handle);
  // A client that trickles its headers or body does not hold a connection for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  return server;
}

/** Listens on 127.0.0.1 only: the port given (0 for any free one); resolves with the port it got. */
function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve(server.address().port);
    });
  });
}

module.exports = { createServer, listen, HOST };
