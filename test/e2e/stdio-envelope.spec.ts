/**
 * Requests the MCP SDK would drop, crash on or answer with a dump of its schema errors: every message with a
 * usable id (a string or an integer) gets exactly one answer (the gateway's envelope for tool arguments, a
 * short JSON-RPC error otherwise) and one line on stderr; answers in flight are written before the server
 * exits; a client that closes the server's stdout ends it quietly.
 */
import { type Json, requireBuild, Sandbox } from './helpers/gateway';
import { exitOf, RawServer } from './helpers/raw-server';

beforeAll(requireBuild);

let sandbox: Sandbox | undefined;
let server: RawServer | undefined;

afterEach(() => {
  server?.kill();
  server = undefined;
  sandbox?.dispose();
  sandbox = undefined;
});

function start(env: Record<string, string> = {}): RawServer {
  sandbox = new Sandbox();
  server = new RawServer(sandbox, env);
  return server;
}

/** Lines a zod error dump leaves on stderr: its indented JSON. */
const ZOD_DUMP = /"code": "invalid_|"expected": "|invalid_union|unrecognized_keys/;

/** A short one-line JSON-RPC error with `code`. */
const shortError = (code: number) => ({ code, message: expect.stringMatching(/^[^\n]{1,300}$/) });

it('answers tool arguments with a "constructor": null member in the gateway envelope (decide) and the tool answer (health)', async () => {
  const s = start();
  await s.ready();
  s.write(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"q?","options":["a","b"],"constructor":null}}}',
  );
  s.write(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"system1_health","arguments":{"constructor":null}}}',
  );
  s.write(
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"q?","options":["a","b"],"toString":null,"valueOf":{"constructor":null}}}}',
  );
  await s.until(() => [1, 2, 3].every((id) => s.answersTo(id).length > 0), 'answers to 1, 2 and 3');

  const [decide] = s.answersTo(1);
  expect(decide.error).toBeUndefined();
  expect(decide.result).toMatchObject({
    isError: true,
    structuredContent: { status: 'error', error: { code: 'invalid_request' } },
  });
  expect(decide.result.structuredContent.error.message).toContain('constructor');

  const [health] = s.answersTo(2);
  if (health.error) {
    expect(health.error).toEqual(shortError(-32602));
  } else {
    expect(['ok', 'degraded', 'down', 'paused']).toContain(health.result.structuredContent.status);
  }
  expect(s.answersTo(3)[0].result).toMatchObject({
    isError: true,
    structuredContent: { status: 'error', error: { code: 'invalid_request' } },
  });
  expect(s.stderr()).not.toContain("reading 'prototype'");
  expect(s.proc.exitCode).toBeNull();
});

it('answers every malformed request with a usable id exactly once, with a short error and one line on stderr', async () => {
  const s = start();
  await s.ready();
  const malformed: [string | number, string][] = [
    [10, '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":null}'],
    [11, '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":[]}'],
    [12, '{"jsonrpc":"2.0","id":12,"method":"tools/list","params":"x"}'],
    [13, '{"jsonrpc":"2.0","id":13,"method":"ping","params":5}'],
    [14, '{"jsonrpc":"2.0","id":14,"method":"tools/list","params":{"_meta":5}}'],
    [15, '{"jsonrpc":"2.0","id":15,"method":"ping","extra":1}'],
    [16, '{"jsonrpc":"1.0","id":16,"method":"ping"}'],
    [17, '{"id":17,"method":"ping"}'],
    [18, '{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":5}}'],
    [
      's-19',
      '{"jsonrpc":"2.0","id":"s-19","method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"q?"},"_meta":{"progressToken":{}}}}',
    ],
    [20, '{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"cursor":5}}'],
    [21, '{"jsonrpc":"2.0","id":21,"method":"initialize","params":{"protocolVersion":7}}'],
    [22, '{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"no_such_tool","arguments":"text"}}'],
    [23, '{"jsonrpc":"2.0","id":23,"method":"tools/call"}'],
    [24, '{"jsonrpc":"2.0","id":24,"method":5}'],
    [25, '{"jsonrpc":"2.0","id":25,"method":"ping","__proto__":{"x":1}}'],
    [9007199254740993, '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'],
  ];
  // No usable id: answered with id null (JSON-RPC's rule), never crashing and never with a dump.
  const unusable = [
    '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":null}',
  ];
  const before = s.stderr().split('\n').length;
  for (const [, line] of malformed) s.write(line);
  for (const line of unusable) s.write(line);
  s.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
  await s.until(() => s.answersTo('last').length === 1, 'the answer to the last ping');
  await s.until(() => malformed.every(([id]) => s.answersTo(id).length > 0), 'answers to every malformed request');

  for (const [id, line] of malformed) {
    const answers = s.answersTo(id);
    expect({ line, count: answers.length }).toEqual({ line, count: 1 });
    expect({ line, error: answers[0].error }).toEqual({ line, error: shortError(answers[0].error?.code) });
    expect([-32600, -32602]).toContain(answers[0].error.code);
  }
  // The ones whose fault is in params say so; the others are invalid requests.
  const codeOf = (id: string | number) => s.answersTo(id)[0].error.code;
  expect([11, 14, 18, 's-19', 20, 21, 22, 23].map(codeOf)).toEqual(Array(8).fill(-32602));
  expect([15, 16, 17, 24, 25, 9007199254740993].map(codeOf)).toEqual(Array(6).fill(-32600));
  expect(s.answersTo(18)[0].error.message).toMatch(/name/);
  // Once: the client adds "MCP error -32602: " itself, so the message must not already carry it.
  expect(s.answersTo(22)[0].error.message).toMatch(/^unknown tool "no_such_tool"/);

  const nulls = s.messages().filter((message) => message.id === null);
  expect(nulls).toHaveLength(unusable.length);
  for (const reply of nulls) expect(reply.error).toEqual(shortError(-32600));
  expect(s.messages()).toHaveLength(malformed.length + unusable.length + 1);

  // One line per rejected message (the ping logs nothing); stderr is a separate pipe, read in its own time.
  const added = () => s.stderr().split('\n').length - before;
  await s.until(() => added() >= malformed.length + unusable.length, 'a line on stderr per rejected message');
  expect(added()).toBe(malformed.length + unusable.length);
  expect(s.stderr()).not.toMatch(ZOD_DUMP);
  expect(s.proc.exitCode).toBeNull();

  // Still serving.
  s.send({
    jsonrpc: '2.0',
    id: 99,
    method: 'tools/call',
    params: { name: 'system1_decide', arguments: { question: 'still there?', options: ['a', 'b'] } },
  });
  await s.until(() => s.answersTo(99).length === 1, 'a decision after the storm');
  expect(s.answersTo(99)[0].result.structuredContent).toMatchObject({ status: 'decided' });
});

it('drops malformed notifications and client responses with one line each, answering only those JSON-RPC answers', async () => {
  const s = start();
  await s.ready();
  const before = s.stderr().split('\n').length;
  // A malformed notification of a method the server handles: nothing to answer, one line on stderr.
  s.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}');
  s.write('{"jsonrpc":"2.0","method":"notifications/initialized","params":5}');
  // A response to a request the server never sent, and an unreadable one: never answered.
  s.write('{"jsonrpc":"2.0","id":5,"result":{}}');
  s.write('{"jsonrpc":"2.0","id":6,"result":5}');
  s.write('{"jsonrpc":"2.0","id":"end","method":"ping"}');
  await s.until(() => s.answersTo('end').length === 1, 'the ping');
  // The params one is not a Request object: JSON-RPC answers it with id null.
  expect(s.messages().filter((message) => message.id !== 'end')).toEqual([
    { jsonrpc: '2.0', id: null, error: shortError(-32600) },
  ]);
  const added = () =>
    s
      .stderr()
      .split('\n')
      .slice(before - 1, -1);
  await s.until(() => added().length >= 4, 'a line on stderr per message');
  expect(added()).toEqual([
    expect.stringMatching(/dropped a notifications\/cancelled notification: params\.requestId/),
    expect.stringMatching(/answered null with -32600: invalid request: "params" must be an object/),
    expect.stringMatching(/Received a response for an unknown message ID/),
    expect.stringMatching(/dropped an unreadable response from the client \(id 6\): result/),
  ]);
  expect(s.stderr()).not.toMatch(ZOD_DUMP);
});

it('writes the answers still in flight when stdin closes, then exits 0', async () => {
  const s = start({ SYSTEM1_MOCK_DELAY_S: '1' });
  await s.ready();
  s.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'system1_decide',
      arguments: { question: 'in flight?', options: ['a', 'b'], request_id: 'in-flight-1' },
    },
  });
  s.write(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"in flight too?","options":["a","b"],"request_id":"in-flight-2","constructor":1}}}',
  );
  await new Promise((resolve) => setTimeout(resolve, 600));
  s.proc.stdin.end();
  expect(await exitOf(s)).toEqual({ code: 0, signal: null });
  expect(s.answersTo(1)).toHaveLength(1);
  expect(s.answersTo(1)[0].result.structuredContent).toMatchObject({ status: 'decided', request_id: 'in-flight-1' });
  expect(s.answersTo(2)).toHaveLength(1);
  expect(s.answersTo(2)[0].result.structuredContent).toMatchObject({ status: 'error' });
});

it('exits quietly when the client closes the server stdout', async () => {
  const s = start({ SYSTEM1_MOCK_DELAY_S: '0.2' });
  await s.ready();
  s.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await s.until(() => s.answersTo(1).length === 1, 'the first ping');
  s.proc.stdout.destroy();
  // Answers written into the closed pipe: the first fails with EPIPE.
  for (let id = 2; id < 6; id++)
    s.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'system1_decide', arguments: { question: 'anyone?', options: ['a', 'b'] } },
    });
  for (let id = 6; id < 10; id++) s.send({ jsonrpc: '2.0', id, method: 'ping' });
  const outcome = await exitOf(s);
  expect(outcome).not.toBe('still running');
  const { code, signal } = outcome as Json;
  expect(signal).toBeNull();
  expect(code).toBe(0);
  const stderr = s.stderr();
  expect(stderr).not.toMatch(/Unhandled|uncaught|node:internal|^\s+at /im);
  expect(stderr).toMatch(/stdout/);
});
