/** system1_health and system1_capabilities as a client sees them. */
import { type InMemoryGateway, InMemoryGateways } from '../../../helpers/in-memory-mcp';
import { readJson } from '../../../helpers/repo-json';
import type { Json } from '../../../helpers/tool-reply';

const gateways = InMemoryGateways.perFile();
let gateway: InMemoryGateway;

beforeAll(async () => {
  gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
});

describe('system1_health', () => {
  it('reports ok for a healthy mock, with no config file and no config errors', async () => {
    const reply = await gateway.call('system1_health');
    expect(reply.isError).toBe(false);
    expect(reply.body).toMatchObject({
      status: 'ok',
      gateway_version: readJson('package.json').version,
      schema_version: '1',
      config_file: null,
      config_errors: [],
      providers: [
        { name: 'mock', role: 'primary', ok: true, latency_ms: expect.any(Number), detail: expect.any(String) },
      ],
    });
    expect(reply.body.providers).toHaveLength(1);
  });

  it('reports degraded when the primary is down and a fallback is up', async () => {
    const degraded = await gateways.connect({
      toml: '[gateway]\nprovider = "broken"\nfallback = ["mock"]\n\n[providers.broken]\ntype = "mock"\nfail = "engine down"\n',
    });
    const health = await degraded.health();
    expect(health.status).toBe('degraded');
    expect(health.config_errors).toEqual([]);
    expect(health.providers).toEqual([
      {
        name: 'broken',
        role: 'primary',
        ok: false,
        latency_ms: expect.any(Number),
        detail: expect.stringContaining('engine down'),
      },
      { name: 'mock', role: 'fallback', ok: true, latency_ms: expect.any(Number), detail: expect.any(String) },
    ]);
  });

  it('reports down when every provider in the chain is down', async () => {
    const down = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_MOCK_FAIL: 'engine down' } });
    const health = await down.health();
    expect(health.status).toBe('down');
    expect(health.config_errors).toEqual([]);
    expect(health.providers).toEqual([
      {
        name: 'mock',
        role: 'primary',
        ok: false,
        latency_ms: expect.any(Number),
        detail: expect.stringContaining('engine down'),
      },
    ]);
  });
});

describe('system1_capabilities', () => {
  let capabilities: Json;
  beforeAll(async () => {
    capabilities = await gateway.capabilities();
  });

  it('lists the three tools, the chain, the timeout and threshold', () => {
    expect(capabilities).toMatchObject({
      gateway_version: readJson('package.json').version,
      schema_version: '1',
      tools: ['system1_decide', 'system1_health', 'system1_capabilities', 'system1_ask'],
      provider_chain: [{ name: 'mock', role: 'primary' }],
      timeout_s: 5,
      min_confidence: 0.6,
      config_errors: [],
    });
  });

  it("describes the mock's capabilities and lists it among the available providers", () => {
    expect(capabilities.providers).toEqual({ mock: expect.objectContaining({ batch: false, probabilities: true }) });
    expect(capabilities.providers.mock).not.toHaveProperty('max_options'); // the mock sets no limit unless configured
    const names = capabilities.available_providers.map((p: Json) => p.name);
    expect(names).toContain('mock');
    const mock = capabilities.available_providers.find((p: Json) => p.name === 'mock');
    expect(Object.keys(mock.settings)).toEqual(
      expect.arrayContaining(['confidence', 'delay_s', 'fail', 'response', 'max_options']),
    );
  });

  it('returns exactly the committed schema/request.json and schema/response.json', () => {
    expect(capabilities.request_schema).toStrictEqual(readJson('schema/request.json'));
    expect(capabilities.response_schema).toStrictEqual(readJson('schema/response.json'));
  });

  it('publishes the request schema as the input schema of system1_decide', async () => {
    const { tools } = await gateway.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'system1_decide',
      'system1_health',
      'system1_capabilities',
      'system1_ask',
    ]);
    const decide = tools.find((t) => t.name === 'system1_decide')!;
    expect(decide.inputSchema).toStrictEqual(readJson('schema/request.json'));
  });
});
