/**
 * Hostile bytes on the real stdio channel: every line that expects an answer gets one (a JSON-RPC error
 * when it is not a usable message), nothing ends the session, and the next decision still works.
 */
import { spawn } from 'node:child_process';
import { type Json, MAIN, requireBuild, Sandbox } from './helpers/gateway';

beforeAll(requireBuild);

const call = (id: number, args: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'system1_decide', arguments: args } });

it('answers invalid JSON, batches, unknown methods, a 20 MB line, deep and wide arguments, and keeps serving', async () => {
  const sandbox = new Sandbox();
  const child = spawn(process.execPath, [MAIN, 'mcp'], {
    env: sandbox.env({ SYSTEM1_PROVIDER: 'mock' }),
    cwd: sandbox.dir,
  });
  child.stdin.on('error', () => undefined);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const messages = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json);
  const waitFor = async (count: number) => {
    for (let i = 0; i < 300 && messages().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  try {
    const lines = [
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '0' } },
      }),
      '{"jsonrpc": "2.0", "id": 2, "method": ',
      JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'tools/list' }]),
      '"just a string"',
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'no/such/method' }),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever' }), // a notification: no answer expected
      // Built as text: JSON.stringify itself overflows on a value this deep.
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"q","context":${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}}}}`,
      call(6, { question: 'q', options: Array.from({ length: 10_000 }, (_, i) => `o${i}`) }),
      call(7, { question: 'x'.repeat(20 * 1024 * 1024) }),
      call(8, { question: 'lone \ud800 surrogate?', options: ['a\udc00', 'b'] }),
      call(9, { question: 'still there?', request_id: 'after-the-storm' }),
    ];
    for (const line of lines) child.stdin.write(`${line}\n`);
    await waitFor(10);
    const all = messages();
    expect(all.every((message) => message.jsonrpc === '2.0')).toBe(true);
    const byId = (id: number | null) => all.filter((message) => message.id === id);
    expect(
      byId(null)
        .map((m) => m.error.code)
        .sort(),
    ).toEqual([-32700, -32600, -32600].sort());
    expect(byId(4)[0].error.code).toBe(-32601);
    for (const [id, words] of [
      [5, /context must nest at most 32 levels/],
      [6, /options must contain no more than 256 elements/],
    ] as const) {
      expect(byId(id)[0].result.structuredContent).toMatchObject({
        status: 'error',
        error: { code: 'invalid_request', message: expect.stringMatching(words) },
      });
    }
    expect(byId(7)[0].error).toEqual({
      code: -32600,
      message: 'message too large: lines are limited to 1048576 bytes',
    });
    // Lone surrogates are text like any other: the option comes back as sent, and the reply line escapes
    // it (so stdout stays valid UTF-8) instead of writing a broken byte sequence or a replacement character.
    expect(byId(8)[0].result.structuredContent).toMatchObject({
      status: 'decided',
      decision: 'a\udc00',
      provider: 'mock',
      probabilities: { 'a\udc00': 0.9 },
    });
    expect(stdout).toContain('"decision":"a\\udc00"');
    expect(stdout).not.toContain('\ufffd');
    expect(byId(9)[0].result.structuredContent).toMatchObject({ status: 'decided', request_id: 'after-the-storm' });
    expect(child.exitCode).toBeNull();
  } finally {
    child.kill();
    sandbox.dispose();
  }
});
