/**
 * What the installer's setup finds (scripts/install/engines.js), with the probes answered in memory: the
 * order it proposes engines in, that it asks only this machine, and that a key is looked at, never shown.
 */

type Reply = { status?: number; body?: unknown; error?: string };
type Candidate = { provider: string; what: string; settings: Record<string, string>; hosted: boolean };

const { findEngines, ollamaHostEndpoint } = require('../../../scripts/install/engines') as {
  findEngines(options: {
    env: Record<string, string>;
    fileProviders?: Record<string, unknown>;
    fetch: (url: string) => Promise<Reply>;
  }): Promise<{ candidates: Candidate[]; notes: string[] }>;
  ollamaHostEndpoint(value: string): string | undefined;
};

const REFUSED: Reply = { error: 'nothing listens there' };
const HEALTHY: Reply = { status: 200, body: { status: 'ok' } };
const TAGS: Reply = {
  status: 200,
  body: {
    models: [
      { name: 'nomic-embed-text:latest', size: 1 },
      { name: 'qwen3:14b', size: 9e9 },
      { name: 'gemma4:e4b', size: 3e9 },
    ],
  },
};

/** A machine whose engines answer as `replies` says (by URL), recording every URL asked. */
function machine(replies: Record<string, Reply>) {
  const asked: string[] = [];
  const fetch = async (url: string) => {
    asked.push(url);
    return replies[url] ?? REFUSED;
  };
  return { asked, fetch };
}

const providers = (found: { candidates: Candidate[] }) => found.candidates.map((candidate) => candidate.provider);

it('proposes local engines before hosted ones, in its order: System One server, laya-serve, Ollama', async () => {
  const { fetch } = machine({
    'http://127.0.0.1:8790/health': HEALTHY,
    'http://127.0.0.1:8765/health': HEALTHY,
    'http://127.0.0.1:11434/api/tags': TAGS,
  });
  const found = await findEngines({ env: { ANTHROPIC_API_KEY: 'sk-ant-x' }, fetch });
  expect(providers(found)).toEqual(['systemone', 'laya', 'ollama', 'anthropic']);
  expect(found.candidates.map((candidate) => candidate.hosted)).toEqual([false, false, false, true]);
});

it("picks Ollama's smallest chat model, never an embedding model, and says when there is none", async () => {
  const found = await findEngines({ env: {}, fetch: machine({ 'http://127.0.0.1:11434/api/tags': TAGS }).fetch });
  expect(found.candidates).toEqual([
    expect.objectContaining({ provider: 'ollama', settings: { model: 'gemma4:e4b' } }),
  ]);
  const embeddingsOnly = await findEngines({
    env: {},
    fetch: machine({
      'http://127.0.0.1:11434/api/tags': { status: 200, body: { models: [{ name: 'nomic-embed-text' }] } },
    }).fetch,
  });
  expect(embeddingsOnly.candidates).toEqual([]);
  expect(embeddingsOnly.notes).toContain(
    'Ollama at http://127.0.0.1:11434: Ollama answers but has no chat model pulled (ollama pull gemma4:e4b)',
  );
});

it('looks where the gateway would: SYSTEM1_<NAME>_ENDPOINT, then the config, then OLLAMA_HOST; a place other than the default is kept in the settings', async () => {
  const { asked, fetch } = machine({
    'http://127.0.0.1:9001/health': HEALTHY,
    'http://localhost:9002/health': HEALTHY,
    'http://127.0.0.1:9003/api/tags': TAGS,
  });
  const found = await findEngines({
    env: { SYSTEM1_SYSTEMONE_ENDPOINT: 'http://127.0.0.1:9001', OLLAMA_HOST: '0.0.0.0:9003' },
    fileProviders: { laya: { endpoint: 'http://localhost:9002' } },
    fetch,
  });
  expect(asked.sort()).toEqual([
    'http://127.0.0.1:9001/health',
    'http://127.0.0.1:9003/api/tags',
    'http://localhost:9002/health',
  ]);
  expect(found.candidates.map((candidate) => [candidate.provider, candidate.settings])).toEqual([
    ['systemone', { endpoint: 'http://127.0.0.1:9001' }],
    ['laya', { endpoint: 'http://localhost:9002' }],
    ['ollama', { endpoint: 'http://127.0.0.1:9003', model: 'gemma4:e4b' }],
  ]);
  // the default place needs no setting
  const atDefault = await findEngines({ env: {}, fetch: machine({ 'http://127.0.0.1:8765/health': HEALTHY }).fetch });
  expect(atDefault.candidates).toEqual([expect.objectContaining({ provider: 'laya', settings: {} })]);
});

it('never probes beyond this machine: another host, or https, is named in a note and not asked', async () => {
  const { asked, fetch } = machine({});
  const found = await findEngines({
    env: {
      SYSTEM1_LAYA_ENDPOINT: 'http://10.0.0.5:8765',
      SYSTEM1_SYSTEMONE_ENDPOINT: 'https://127.0.0.1:8790',
      OLLAMA_HOST: 'gpu-box.example.com',
    },
    fetch,
  });
  expect(asked).toEqual([]);
  expect(found.candidates).toEqual([]);
  expect(found.notes.filter((note) => note.includes('not probed'))).toHaveLength(3);
});

it('looks at a hosted key by presence only: its value is in no candidate and no note', async () => {
  const secret = 'sk-ant-api03-SECRET-VALUE';
  const env = {
    ANTHROPIC_API_KEY: secret,
    SYSTEM1_TYPESAFE_API_KEY: secret,
    SYSTEM1_CLOUDFLARE_API_TOKEN: secret,
    OPENAI_API_KEY: secret,
  };
  const found = await findEngines({ env, fetch: machine({}).fetch });
  expect(providers(found)).toEqual(['anthropic', 'typesafe']);
  expect(found.notes).toEqual(
    expect.arrayContaining([
      expect.stringContaining('cloudflare also needs account_id'),
      expect.stringContaining('OPENAI_API_KEY is set, but no engine here reads it'),
    ]),
  );
  expect(JSON.stringify(found)).not.toContain(secret);
  // with the account id, Cloudflare is proposed too; a blank key is no key
  const withAccount = await findEngines({
    env: { ...env, SYSTEM1_CLOUDFLARE_ACCOUNT_ID: 'abc', ANTHROPIC_API_KEY: '  ' },
    fetch: machine({}).fetch,
  });
  expect(providers(withAccount)).toEqual(['typesafe', 'cloudflare']);
});

it.each([
  ['127.0.0.1', 'http://127.0.0.1:11434'],
  ['0.0.0.0:11500', 'http://127.0.0.1:11500'],
  [':11500', 'http://127.0.0.1:11500'],
  ['http://localhost:8080', 'http://localhost:8080'],
  ['[::]:11434', 'http://127.0.0.1:11434'],
  ['http://localhost', 'http://localhost'],
  ['https://ollama.example.com', 'https://ollama.example.com'],
])('reads OLLAMA_HOST=%s as %s', (value, endpoint) => {
  expect(ollamaHostEndpoint(value)).toBe(endpoint);
});
