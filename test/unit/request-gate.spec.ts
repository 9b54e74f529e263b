/**
 * The request gate over a fake transport: what it refuses, what it answers itself, what it passes to the
 * SDK, and how it counts the answers in flight (for the drain when stdin closes).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResult, JSONRPCMessage, ListToolsRequestSchema, PingRequestSchema, CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { envelopeFault, Parser } from '../../src/mcp/envelope';
import { gateRequests, RpcError, ToolCall } from '../../src/mcp/request-gate';

class FakeTransport implements Transport {
  sent: JSONRPCMessage[] = [];
  delivered: JSONRPCMessage[] = [];
  onmessage?: Transport['onmessage'] = (message) => void this.delivered.push(message);
  onclose?: () => void;
  async start() {}
  async close() {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage) {
    this.sent.push(message);
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

function setup(call: ToolCall = async () => ({ content: [] })) {
  const transport = new FakeTransport();
  const warnings: string[] = [];
  const gate = gateRequests(transport, {
    call,
    requests: new Map<string, Parser>([
      ['ping', PingRequestSchema],
      ['tools/list', ListToolsRequestSchema],
    ]),
    notifications: new Map<string, Parser>([['notifications/cancelled', CancelledNotificationSchema]]),
    warn: (line) => warnings.push(line),
  });
  const receive = (message: object) => transport.onmessage!(message as JSONRPCMessage);
  return { transport, gate, warnings, receive };
}

describe('the request gate', () => {
  it('refuses params the SDK would dump zod errors for, in one short line, and passes the rest on', async () => {
    const { transport, warnings, receive } = setup();
    receive({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } });
    receive({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } });
    receive({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'system1_decide', task: 5 } });
    receive({ jsonrpc: '2.0', id: 4, method: 'ping' });
    receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } });
    await tick();
    expect(transport.sent.map((m) => [('id' in m && m.id) as unknown, 'error' in m && m.error.code])).toEqual([
      [1, -32602],
      [2, -32602],
      [3, -32602],
    ]);
    for (const reply of transport.sent) expect('error' in reply && reply.error.message).toMatch(/^invalid params: [^\n]{1,200}$/);
    expect(transport.delivered).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(warnings).toHaveLength(4);
  });

  it('answers arguments the SDK would refuse or choke on through the tool itself', async () => {
    const calls: unknown[] = [];
    const { transport, receive } = setup(async (name, args) => {
      calls.push(args);
      return { content: [{ type: 'text', text: name }] } as CallToolResult;
    });
    const odd = JSON.parse('{"question":"q?","constructor":null}') as unknown;
    receive({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'system1_decide', arguments: odd } });
    receive({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'system1_decide', arguments: 'text' } });
    receive({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'system1_decide', arguments: { question: 'q?' } } });
    await tick();
    expect(calls).toEqual([odd, 'text']);
    expect(transport.sent.map((m) => 'id' in m && m.id)).toEqual(['a', 'b']);
    expect(transport.delivered.map((m) => 'id' in m && m.id)).toEqual(['c']);
  });

  it('turns an unknown tool or a failure into a short JSON-RPC error', async () => {
    const { transport, receive } = setup(async (name) => {
      throw new RpcError(-32602, `unknown tool ${name}\nwith a second line`);
    });
    receive({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope', arguments: [] } });
    await tick();
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'unknown tool nope with a second line' } }]);
  });

  it('counts answers in flight, settles when the last is written, and gives up after its bound', async () => {
    let finish!: (result: CallToolResult) => void;
    const { transport, gate, receive } = setup(() => new Promise((resolve) => (finish = resolve)));
    receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: 'direct' } });
    receive({ jsonrpc: '2.0', id: 2, method: 'ping' }); // handed to the SDK
    expect(gate.inFlight).toBe(2);
    expect(await gate.settled(20)).toBe(false); // the bound
    const settled = gate.settled(10_000);
    await transport.send({ jsonrpc: '2.0', id: 2, result: {} }); // the SDK answers
    expect(gate.inFlight).toBe(1);
    finish({ content: [] });
    expect(await settled).toBe(true);
    expect(gate.inFlight).toBe(0);
  });

  it('does not wait for, nor write, an answer the client cancelled', async () => {
    const { transport, gate, receive } = setup((_name, _args, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: [] }))));
    receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: 'direct' } });
    receive({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(gate.inFlight).toBe(2);
    receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect(gate.inFlight).toBe(0);
    expect(await gate.settled(10_000)).toBe(true);
    await tick();
    expect(transport.sent).toEqual([]);
  });

  it('stops waiting when the session closes', async () => {
    const { transport, gate, receive } = setup(() => new Promise(() => undefined));
    receive({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: 'direct' } });
    const settled = gate.settled(60_000);
    await transport.close();
    expect(await settled).toBe(false);
  });
});

describe('the JSON-RPC envelope check', () => {
  const answer = (message: object) => {
    const fault = envelopeFault(message as Record<string, unknown>);
    return fault && 'answer' in fault ? fault.answer : fault;
  };

  it('passes what the SDK reads, including odd but valid members', () => {
    expect(answer({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBeNull();
    expect(answer({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeNull();
    expect(answer(JSON.parse('{"jsonrpc":"2.0","id":"x","method":"ping","params":{"constructor":null,"__proto__":{"a":1}}}'))).toBeNull();
    expect(answer({ jsonrpc: '2.0', id: 3, result: {} })).toBeNull();
  });

  it('answers a usable id with its own id and anything else with id null and Invalid Request', () => {
    expect(answer({ jsonrpc: '2.0', id: 1, method: 'ping', params: null })).toEqual({ id: 1, code: -32600, message: 'invalid request: "params" must be an object' });
    expect(answer({ jsonrpc: '2.0', id: 'k', method: 'ping', params: [] })).toMatchObject({ id: 'k', code: -32602 });
    expect(answer({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { progressToken: {} } } })).toMatchObject({ id: 2, code: -32602, message: expect.stringContaining('params._meta.progressToken') });
    expect(answer({ jsonrpc: '2.0', id: 2 ** 60, method: 'ping' })).toMatchObject({ id: 2 ** 60, code: -32600 });
    for (const id of [true, 1.5, {}, null, []]) expect(answer({ jsonrpc: '2.0', id, method: 'ping' })).toMatchObject({ id: null, code: -32600 });
    expect(answer({ jsonrpc: '2.0', method: 'notifications/initialized', params: [] })).toMatchObject({ id: null, code: -32600 });
    expect(answer(JSON.parse('{"jsonrpc":"2.0","id":5,"method":"ping","__proto__":{}}'))).toMatchObject({ id: 5, code: -32600, message: expect.stringContaining('"__proto__"') });
  });

  it('drops an unreadable response from the client instead of answering it', () => {
    expect(envelopeFault({ jsonrpc: '2.0', id: 6, result: 5 })).toEqual({ drop: expect.stringMatching(/^dropped an unreadable response from the client \(id 6\)/) });
  });
});
