/**
 * One rule for fields a request does not declare (issue 40): system1_decide, system1_ask and the library's
 * decide refuse a "__proto__" key (whether it is still a key or has already become the prototype on its way
 * through the SDK) and a key named after an Object member, before any engine runs, in the same words.
 */
import { InMemoryGateways } from '../../helpers/in-memory-mcp';
import { LibrarySandbox } from '../library/library-setup';

const gateways = InMemoryGateways.perTest();
let sandbox: LibrarySandbox;
beforeEach(() => (sandbox = new LibrarySandbox()));
afterEach(() => sandbox.close());

const MOCK = '[gateway]\nprovider = "mock"\n';
const QUESTION = { id: 'ship', type: 'noul', instructions: 'Ship it?' };

/** The words every checker uses for an undeclared key of `what`, listing the fields it has. */
const notAField = (key: string, what: string, fields: string) =>
  `"${key}" is not a field of ${what} (fields: ${fields})`;

/** Each entry point's message for arguments with the extra `key`, given as JSON text the way a client sends it. */
async function refusals(key: string): Promise<{ decide: string; ask: string; library: string }> {
  const extra = `"${key}": {"question": 1, "polluted": true}`;
  const gateway = await gateways.connect({ toml: MOCK });
  const decide = await gateway.decide(JSON.parse(`{"question": "Ship it?", ${extra}}`) as Record<string, unknown>);
  const ask = await gateway.call(
    'system1_ask',
    JSON.parse(`{"state": "s", "questions": ${JSON.stringify([QUESTION])}, ${extra}}`) as Record<string, unknown>,
  );
  const system1 = await sandbox.open(MOCK);
  const library = await system1
    .decide(JSON.parse(`{"state": "s", "questions": {"ship": ${JSON.stringify(QUESTION)}}, ${extra}}`) as never)
    .then(
      () => 'answered',
      (error: Error) => error.message,
    );
  for (const reply of [decide, ask])
    expect(reply.body).toMatchObject({ status: 'error', error: { code: 'invalid_request' } });
  return { decide: decide.body.error.message as string, ask: ask.body.error.message as string, library };
}

it.each(['__proto__', 'constructor', 'toString'])(
  'refuses a %j key in system1_decide, system1_ask and the library in the same words',
  async (key) => {
    expect(await refusals(key)).toEqual({
      decide: `invalid request: ${notAField(
        key,
        'the system1_decide arguments',
        'question, options, context, min_confidence, request_id, schema_version',
      )}`,
      ask: `invalid request: ${notAField(key, 'the system1_ask arguments', 'state, questions, images, longContext, model')}`,
      library: notAField(
        key,
        'a decision request',
        'state, questions, images, longContext, model, signal, timeoutMs, minConfidence',
      ),
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  },
);
