/**
 * The in-memory harness the tool suites run on (test/helpers/in-memory-mcp.ts) serves what `system1 mcp`
 * serves: both protocol eras from one server, the same four tools and the same result for the same call,
 * and the gate in front (arguments that are not an object answered in the gateway's envelope).
 */
import { InMemoryGateways } from '../../helpers/in-memory-mcp';
import { readJson } from '../../helpers/repo-json';

const gateways = InMemoryGateways.perTest();
const TOOLS = ['system1_decide', 'system1_health', 'system1_capabilities', 'system1_ask'];
const ASK = { question: 'Rerun the flaky pipeline or block the merge?', options: ['rerun', 'block'] };

it.each([
  ['legacy', /^2025-/],
  ['modern', /^2026-07-28$/],
] as const)('serves the %s era: its revision, the four tools and the same decision', async (era, revision) => {
  const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' }, era });
  expect(gateway.protocolVersion).toMatch(revision);
  const { tools } = await gateway.client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
  expect(tools[0].inputSchema).toStrictEqual(readJson('schema/request.json'));
  const { body, isError } = await gateway.decide({ ...ASK, request_id: `eras-${era}` });
  expect(isError).toBe(false);
  expect(body).toMatchObject({
    request_id: `eras-${era}`,
    status: 'decided',
    decision: 'rerun',
    provider: 'mock',
    attempts: [{ provider: 'mock', outcome: 'ok', latency_ms: expect.any(Number), detail: null }],
  });
});

it('passes each call through the gate: arguments that are not an object come back as invalid_request', async () => {
  const gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
  const result = (await gateway.client.callTool({
    name: 'system1_decide',
    arguments: ['not', 'an', 'object'] as unknown as Record<string, unknown>,
  })) as { isError?: boolean; structuredContent?: { status: string; error: { code: string } } };
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toMatchObject({ status: 'error', error: { code: 'invalid_request' } });
});
