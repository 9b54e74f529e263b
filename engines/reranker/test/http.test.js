'use strict';
// The server's safety rules, each on its own: the Host and Origin rules, the 1 MiB body cap, JSON only, at
// most 16 questions and 256 options, the optional bearer token; and that it keeps serving after a refusal,
// a failed run, or while busy.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { startServer, request } = require('../test-support/server');

const ONE_MIB = 1024 * 1024;
const CHOICE = { type: 'choice', instructions: 'Which team?', criteria: { billing: 'refunds', shipping: null } };
const DECISION = { state: { ticket: 'I was charged twice' }, questions: { route: CHOICE } };

function choiceWith(options) {
  return {
    type: 'choice',
    instructions: 'Which one?',
    criteria: Object.fromEntries(Array.from({ length: options }, (_, i) => [`option ${i}`, null])),
  };
}

function questions(count, options = 2) {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`q${i}`, choiceWith(options)]));
}

let server;
test.before(async () => {
  server = await startServer();
});
test.after(() => server.close());

test('Host: answers 127.0.0.1 and localhost on its own port, refuses any other name or port with 403', async () => {
  assert.equal((await request(server.port, { body: DECISION })).status, 200);
  assert.equal(
    (await request(server.port, { body: DECISION, headers: { host: `LOCALHOST:${server.port}` } })).status,
    200,
  );
  for (const host of [
    'evil.example',
    `evil.example:${server.port}`,
    `127.0.0.1:${server.port + 1}`,
    '127.0.0.1',
    `[::1]:${server.port}`,
    `0.0.0.0:${server.port}`,
  ]) {
    const reply = await request(server.port, { body: DECISION, headers: { host } });
    assert.equal(reply.status, 403, host);
    assert.equal(reply.body.error.type, 'permission_error');
    assert.match(
      reply.body.error.message,
      new RegExp(`answers only to 127\\.0\\.0\\.1:${server.port} or localhost:${server.port}`),
    );
  }
  const health = await request(server.port, { method: 'GET', path: '/health', headers: { host: 'rebound.example' } });
  assert.equal(health.status, 403);
});

test('Host: a request without one is refused (HTTP/1.0 by this server, HTTP/1.1 by Node itself)', async () => {
  const statusOf = (raw) =>
    new Promise((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.end(raw));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1])));
      socket.on('error', reject);
    });
  assert.equal(await statusOf('GET /health HTTP/1.0\r\n\r\n'), 403);
  assert.equal(await statusOf('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'), 400);
});

test('a request a web page sends (with an Origin) is refused with 403', async () => {
  const reply = await request(server.port, { body: DECISION, headers: { origin: 'https://evil.example' } });
  assert.equal(reply.status, 403);
  assert.match(reply.body.error.message, /a request from a web page/);
});

test('size: a body over 1 MiB is refused with 413, declared or streamed; one of exactly 1 MiB is read', async () => {
  const padded = (bytes) => {
    const text = JSON.stringify(DECISION);
    return text.slice(0, -1) + ' '.repeat(bytes - Buffer.byteLength(text)) + '}';
  };
  assert.equal(Buffer.byteLength(padded(ONE_MIB)), ONE_MIB);
  assert.equal((await request(server.port, { body: padded(ONE_MIB) })).status, 200);

  const declared = await request(server.port, { body: padded(ONE_MIB + 1) });
  assert.equal(declared.status, 413);
  assert.equal(declared.body.error.type, 'request_too_large_error');
  assert.match(declared.body.error.message, /over the 1048576-byte \(1 MiB\) limit/);

  const streamed = await request(server.port, {
    body: padded(ONE_MIB + 1),
    headers: { 'content-length': undefined, 'transfer-encoding': 'chunked' },
  });
  assert.equal(streamed.status, 413);
  // and it still serves
  assert.equal((await request(server.port, { body: DECISION })).status, 200);
});

/**
 * An upload as curl makes it: the headers, then the body in chunks as the socket takes them, reading the
 * answer meanwhile; a write that fails (EPIPE, ECONNRESET) ends it, as it ends curl, with the answer lost.
 */
function upload(port, head, body) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let failed;
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', (error) => (failed = error.code ?? error.message));
    socket.on('close', () =>
      resolve(failed ? { lost: failed, text } : { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text }),
    );
    socket.once('connect', async () => {
      socket.write(head);
      for (let at = 0; at < body.length && !failed && !socket.destroyed; at += 64 * 1024) {
        if (!socket.write(body.subarray(at, at + 64 * 1024)))
          await new Promise((drained) => socket.once('drain', drained).once('close', drained));
      }
      if (!socket.destroyed) socket.end();
    });
  });
}

test('size: ten uploads of 8 MiB each read their 413: the server drops the rest of the body before it closes', async () => {
  const body = Buffer.alloc(8 * ONE_MIB, ' ');
  const headers = (framing) =>
    `POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n${framing}\r\n`;
  const chunked = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
  const answers = [];
  for (let i = 0; i < 10; i++) {
    answers.push(
      await (i % 2 === 0
        ? upload(server.port, headers(`Content-Length: ${body.length}\r\n`), body)
        : upload(server.port, headers('Transfer-Encoding: chunked\r\n'), chunked)),
    );
  }
  for (const answer of answers) {
    assert.equal(answer.status, 413, JSON.stringify({ ...answer, text: answer.text.slice(0, 200) }));
    assert.match(answer.text, /\r\nconnection: close\r\n/i);
    assert.equal(
      JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4)).error.type,
      'request_too_large_error',
    );
  }
  assert.equal((await request(server.port, { body: DECISION })).status, 200);
});

test('size: a client waiting for 100 Continue with a body over the cap gets the 413 instead, and sends nothing', async () => {
  const answer = await new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1', () => {
      socket.write(
        `POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: ${8 * ONE_MIB}\r\nExpect: 100-continue\r\n\r\n`,
      );
    });
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(answer, /^HTTP\/1\.1 413 /);
  assert.doesNotMatch(answer, /100 Continue/);
});

test('a body that is not JSON is refused with 400 saying so', async () => {
  for (const body of ['{"state": {', 'state=1', '']) {
    const reply = await request(server.port, { body });
    assert.equal(reply.status, 400, body);
    assert.match(reply.body.error.message, /the body is not JSON/);
  }
});

test('questions: 16 in one request are answered, 17 are refused with 400 naming the limit', async () => {
  const sixteen = await request(server.port, { body: { state: {}, questions: questions(16) } });
  assert.equal(sixteen.status, 200);
  assert.equal(Object.keys(sixteen.body.answers).length, 16);
  const seventeen = await request(server.port, { body: { state: {}, questions: questions(17) } });
  assert.equal(seventeen.status, 400);
  assert.equal(seventeen.body.error.message, 'too many questions: 17, at most 16 in one request');
});

test('options: 256 in one request are answered, 257 are refused with 400, in one question or over several', async () => {
  const most = await request(server.port, { body: { state: {}, questions: { pick: choiceWith(256) } } });
  assert.equal(most.status, 200);
  assert.equal(Object.keys(most.body.answers.pick.probabilities).length, 256);
  const one = await request(server.port, { body: { state: {}, questions: { pick: choiceWith(257) } } });
  assert.equal(one.status, 400);
  assert.match(one.body.error.message, /^too many options: 257 in all .* at most 256 in one request$/);
  // Two questions of 129: 258 pairs in the one model run.
  const spread = await request(server.port, { body: { state: {}, questions: questions(2, 129) } });
  assert.equal(spread.status, 400);
  assert.match(spread.body.error.message, /too many options: 258 in all/);
});

test('requests the contract does not allow are refused with 400 naming the field', async () => {
  const cases = [
    [{ questions: { route: CHOICE } }, /"state" is required/],
    [{ state: {}, questions: {} }, /"questions" must be a non-empty object/],
    [
      { state: {}, questions: { route: { ...CHOICE, instructions: '' } } },
      /questions\.route: "instructions" must be a non-empty string/,
    ],
    [
      { state: {}, questions: { route: { ...CHOICE, criteria: {} } } },
      /questions\.route: "criteria" must be an object mapping each option/,
    ],
    [
      { state: {}, questions: { route: { ...CHOICE, criteria: { a: 3 } } } },
      /the description of option "a" must be a string or null/,
    ],
    [
      { state: {}, questions: { level: { type: 'score', instructions: 'How bad?', criteria: ['only one'] } } },
      /array of 2 to 10 levels/,
    ],
    [
      { state: {}, questions: { where: { type: 'box', instructions: 'Where?' } } },
      /type "box" is not answered by a reranker/,
    ],
    [
      { state: {}, questions: { route: CHOICE }, images: [{ mediaType: 'image/png', data: 'AA==' }] },
      /"images" cannot be answered/,
    ],
    [{ model: 7, state: {}, questions: { route: CHOICE } }, /"model" must be a string/],
  ];
  for (const [body, message] of cases) {
    const reply = await request(server.port, { body });
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.equal(reply.body.error.type, 'invalid_request_error');
    assert.match(reply.body.error.message, message);
  }
});

test("a list of labels (Laya's criteria) and option keys such as __proto__ come back as sent", async () => {
  const labels = await request(server.port, {
    body: {
      state: {},
      questions: { labels: { type: 'choice', instructions: 'Which?', criteria: ['billing', 'shipping'] } },
    },
  });
  assert.equal(labels.status, 200);
  assert.deepEqual(Object.keys(labels.body.answers.labels.probabilities), ['billing', 'shipping']);
  const odd = await request(server.port, {
    body: '{"state":{},"questions":{"odd":{"type":"choice","instructions":"Which?","criteria":{"__proto__":"a","constructor":"b"}}}}',
  });
  assert.equal(odd.status, 200);
  assert.deepEqual(Object.keys(odd.body.answers.odd.probabilities), ['__proto__', 'constructor']);
});

test('token: with SYSTEM1_SYSTEMONE_API_KEY set, a decision needs that bearer token (401 otherwise); /health stays public', async () => {
  const key = 'sk-reranker-test-0123456789';
  const guarded = await startServer({ apiKey: key });
  try {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${key}x`, `Basic ${key}`, 'Bearer ']) {
      const reply = await request(guarded.port, { body: DECISION, headers: { authorization } });
      assert.equal(reply.status, 401, String(authorization));
      assert.equal(reply.body.error.type, 'authentication_error');
      assert.ok(!reply.text.includes(key), 'the key never appears in an answer');
    }
    assert.equal(
      (await request(guarded.port, { body: DECISION, headers: { authorization: `Bearer ${key}` } })).status,
      200,
    );
    assert.equal((await request(guarded.port, { method: 'GET', path: '/health' })).status, 200);
  } finally {
    await guarded.close();
  }
});

test('/health says the model is loaded and what it can answer', async () => {
  const reply = await request(server.port, { method: 'GET', path: '/health' });
  assert.equal(reply.status, 200);
  assert.equal(reply.body.status, 'ok');
  assert.equal(reply.body.device, 'cpu');
  assert.deepEqual(reply.body.limits, { max_questions: 16, max_options: 256, max_levels: 10, max_body_bytes: ONE_MIB });
  // By default candidates are cut at 512 tokens and no choice is shortlisted.
  assert.equal(reply.body.max_candidate_tokens, 512);
  assert.equal(reply.body.shortlist, false);
  assert.deepEqual(
    Object.fromEntries(Object.entries(reply.body.capabilities).map(([name, { supported }]) => [name, supported])),
    { choice: true, noul: true, score: true, box: false, images: false },
  );
});

test('unknown routes answer 404 and wrong methods 405, in the error shape', async () => {
  assert.equal((await request(server.port, { method: 'GET', path: '/v1/models' })).status, 404);
  const wrong = await request(server.port, { method: 'GET', path: '/v1/systemone' });
  assert.equal(wrong.status, 405);
  assert.deepEqual(Object.keys(wrong.body.error), ['code', 'message', 'type']);
  assert.equal((await request(server.port, { method: 'POST', path: '/health', body: {} })).status, 405);
});

test('a failed model run is a 500 naming it, and the next request is answered', async () => {
  const run = server.model.session.run;
  server.model.session.run = () => Promise.reject(new Error('out of memory'));
  const failed = await request(server.port, { body: DECISION });
  server.model.session.run = run;
  assert.equal(failed.status, 500);
  assert.equal(failed.body.error.message, 'the model run failed: out of memory');
  assert.equal((await request(server.port, { body: DECISION })).status, 200);
});

test('requests take turns on the model; past the queue a request gets 429 with Retry-After', async () => {
  const busy = await startServer({ maxQueued: 2 });
  try {
    const run = busy.model.session.run;
    let release;
    const gate = new Promise((resolve) => (release = resolve));
    busy.model.session.run = (...args) => gate.then(() => run(...args));
    const first = request(busy.port, { body: DECISION });
    const second = request(busy.port, { body: DECISION });
    while (busy.reranker.queued < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    const third = await request(busy.port, { body: DECISION });
    assert.equal(third.status, 429);
    assert.equal(third.headers['retry-after'], '1');
    release();
    assert.deepEqual([(await first).status, (await second).status], [200, 200]);
    assert.equal((await request(busy.port, { body: DECISION })).status, 200);
  } finally {
    await busy.close();
  }
});
