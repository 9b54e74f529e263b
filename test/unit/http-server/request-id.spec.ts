import { settleRequestId } from '../../../src/http-server/request-id';

const call = (args: unknown) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'system1_decide', arguments: args },
});
const generated = () => 'generated-id';

describe('the request id of an HTTP request', () => {
  it("is the call's own request_id, else the client's x-request-id, else a new one", () => {
    expect(settleRequestId(call({ request_id: 'from-args' }), 'from-header', generated)).toBe('from-args');
    expect(settleRequestId(call({ question: 'Go?' }), 'from-header', generated)).toBe('from-header');
    expect(settleRequestId(call({ question: 'Go?' }), ['first', 'second'], generated)).toBe('first');
    expect(settleRequestId(undefined, undefined, generated)).toBe('generated-id');
  });

  it('skips an id that cannot travel in a header or a log line', () => {
    for (const bad of ['two words', 'line\nbreak', 'é-accent', '', 'x'.repeat(129), 42]) {
      expect(settleRequestId(call({ request_id: bad }), undefined, generated)).toBe('generated-id');
      if (typeof bad === 'string') expect(settleRequestId(undefined, bad, generated)).toBe('generated-id');
    }
  });
});
