/**
 * The raw stdio stream, without the SDK: stdout carries JSON-RPC messages and nothing else, and the logs
 * (with every request id) go to stderr.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { type Json, MAIN, requireBuild, Sandbox } from './helpers/gateway';

beforeAll(requireBuild);

/** What a refused unknown field is told it may be instead. */
const DECIDE_FIELDS = 'question, options, context, min_confidence, request_id, schema_version';

let sandbox: Sandbox | undefined;
let child: ChildProcessWithoutNullStreams | undefined;

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
  sandbox?.dispose();
  sandbox = undefined;
});

/** Collects stdout lines and resolves when the responses to `ids` have all arrived. */
function collector(proc: ChildProcessWithoutNullStreams) {
  let stdout = '';
  let stderr = '';
  const waiters: { ids: number[]; resolve: () => void }[] = [];
  const seen = new Set<number>();
  const check = () => {
    for (const w of waiters.splice(0)) {
      if (w.ids.every((id) => seen.has(id))) w.resolve();
      else waiters.push(w);
    }
  };
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const line of stdout.split('\n')) {
      try {
        const message = JSON.parse(line) as Json;
        if (typeof message.id === 'number') seen.add(message.id);
      } catch {
        // a partial line, or the non-JSON line the test below fails on
      }
    }
    check();
  });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    responses: (...ids: number[]) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no response to ${ids.join(', ')}; stdout:\n${stdout}\nstderr:\n${stderr}`)),
          15_000,
        );
        waiters.push({ ids, resolve: () => (clearTimeout(timer), resolve()) });
        check();
      }),
  };
}

it('writes only JSON-RPC lines on stdout and request-id-tagged logs on stderr, then exits when stdin closes', async () => {
  sandbox = new Sandbox();
  const proc = spawn(process.execPath, [MAIN, 'mcp'], {
    env: sandbox.env({ SYSTEM1_PROVIDER: 'mock', SYSTEM1_LOG_LEVEL: 'DEBUG' }),
    cwd: sandbox.dir,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child = proc;
  const io = collector(proc);
  const send = (message: Json) => proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));

  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-e2e', version: '0' } },
  });
  await io.responses(1);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list', params: {} });
  send({
    id: 3,
    method: 'tools/call',
    params: {
      name: 'system1_decide',
      arguments: { question: 'Raw stdio question?', options: ['a', 'b'], request_id: 'raw-ok-1' },
    },
  });
  send({
    id: 4,
    method: 'tools/call',
    params: { name: 'system1_decide', arguments: { question: '', request_id: 'raw-bad-1' } },
  });
  send({ id: 5, method: 'tools/call', params: { name: 'system1_health', arguments: {} } });
  send({ id: 6, method: 'tools/call', params: { name: 'system1_capabilities', arguments: {} } });
  // Arguments the SDK's own schema would refuse or mangle still get the gateway's envelope.
  send({ id: 7, method: 'tools/call', params: { name: 'system1_decide', arguments: 'just text' } });
  send({ id: 8, method: 'tools/call', params: { name: 'system1_decide', arguments: ['Q?'] } });
  send({
    id: 9,
    method: 'tools/call',
    params: { name: 'system1_decide', arguments: { question: 'Q?', constructor: 1 } },
  });
  proc.stdin.write(
    '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"system1_decide","arguments":{"question":"Q?","__proto__":{"x":1}}}}\n',
  );
  await io.responses(2, 3, 4, 5, 6, 7, 8, 9, 10);

  // The client closes the stream: the server must shut down by itself.
  proc.stdin.end();
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    exited,
    new Promise<'still running'>((r) => (timer = setTimeout(() => r('still running'), 10_000))),
  ]);
  clearTimeout(timer);
  expect(code).toBe(0);

  const lines = io
    .stdout()
    .split('\n')
    .filter((line) => line.trim() !== '');
  expect(lines.length).toBeGreaterThanOrEqual(10);
  for (const line of lines) {
    let message: unknown;
    expect(() => (message = JSON.parse(line))).not.toThrow();
    expect(message).toEqual(expect.objectContaining({ jsonrpc: '2.0' }));
    expect(typeof message === 'object' && message !== null && !Array.isArray(message)).toBe(true);
  }
  const byId = new Map(lines.map((line) => JSON.parse(line) as Json).map((m) => [m.id, m]));
  expect(byId.get(2)!.result.tools.map((t: Json) => t.name)).toEqual([
    'system1_decide',
    'system1_health',
    'system1_capabilities',
    'system1_ask',
  ]);
  expect(byId.get(3)!.result.structuredContent).toMatchObject({
    request_id: 'raw-ok-1',
    status: 'decided',
    decision: 'a',
  });
  // An invalid argument is the gateway's own envelope, not a protocol error.
  expect(byId.get(4)!.error).toBeUndefined();
  expect(byId.get(4)!.result).toMatchObject({
    isError: true,
    structuredContent: { request_id: 'raw-bad-1', status: 'error', error: { code: 'invalid_request' } },
  });

  const envelopes = [7, 8, 9, 10].map((id) => byId.get(id)!);
  for (const reply of envelopes) {
    expect(reply.error).toBeUndefined();
    expect(reply.result).toMatchObject({
      isError: true,
      structuredContent: { status: 'error', error: { code: 'invalid_request' } },
    });
  }
  expect(envelopes.map((reply) => reply.result.structuredContent.error.message)).toEqual([
    'invalid request: the arguments must be a JSON object',
    'invalid request: the arguments must be a JSON object',
    `invalid request: "constructor" is not a field of the system1_decide arguments (fields: ${DECIDE_FIELDS})`,
    `invalid request: "__proto__" is not a field of the system1_decide arguments (fields: ${DECIDE_FIELDS})`,
  ]);

  const stderr = io.stderr();
  expect(stderr).toContain('raw-ok-1');
  expect(stderr).toContain('raw-bad-1');
  expect(stderr).toContain('Raw stdio question?'); // DEBUG adds the question text
  // Every gateway log line about a request carries its id.
  const gatewayLines = stderr.split('\n').filter((line) => line.includes('[Decide]'));
  expect(gatewayLines.length).toBeGreaterThan(0);
  for (const line of gatewayLines) expect(line).toMatch(/\[Decide\] \[(raw-ok-1|raw-bad-1|[0-9a-f-]{36})\] /);
});
