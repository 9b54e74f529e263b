/** system1_decide on a default mock: the spec's seed example, yes/no questions and the limits that must pass. */
import Ajv2020 from 'ajv/dist/2020';
import { SPEC_REQUEST, SPEC_REQUEST_ID, specResponse } from '../../../fixtures/spec-example';
import { type InMemoryGateway, InMemoryGateways } from '../../../helpers/in-memory-mcp';
import { readJson } from '../../../helpers/repo-json';

const gateways = InMemoryGateways.perFile();
let gateway: InMemoryGateway;

beforeAll(async () => {
  gateway = await gateways.connect({ env: { SYSTEM1_PROVIDER: 'mock' } });
});

describe('the spec seed example', () => {
  it('answers exactly the documented response', async () => {
    const reply = await gateway.decide({ ...SPEC_REQUEST, request_id: SPEC_REQUEST_ID });
    expect(reply.isError).toBe(false);
    expect(reply.body).toStrictEqual(specResponse(expect.any(Number)));
    // The same object travels as the JSON text of content[0] (checked field by field, not only by the helper).
    expect(JSON.parse(reply.text)).toStrictEqual(reply.body);
  });

  it('matches the published response schema', async () => {
    const validate = new Ajv2020({ strict: false }).compile(readJson('schema/response.json'));
    const decided = await gateway.decide({ question: 'Rerun?', options: ['rerun the pipeline', 'block the merge'] });
    const failed = await gateway.decide({ question: '' });
    for (const { body } of [decided, failed]) {
      expect(validate(body) ? [] : validate.errors).toEqual([]);
    }
  });
});

describe('request ids', () => {
  it('generates a request id when none is sent', async () => {
    const first = await gateway.decide({ question: 'Deploy now?' });
    const second = await gateway.decide({ question: 'Deploy now?' });
    expect(first.body.request_id).toEqual(expect.any(String));
    expect(first.body.request_id.length).toBeGreaterThan(0);
    expect(second.body.request_id).not.toBe(first.body.request_id);
  });

  it('echoes a request id even when the request is invalid', async () => {
    const { body } = await gateway.decide({ question: '', request_id: 'echo-invalid-1' });
    expect(body.status).toBe('error');
    expect(body.request_id).toBe('echo-invalid-1');
  });

  it('accepts schema_version "1"', async () => {
    const { body } = await gateway.decide({ question: 'Ship it?', schema_version: '1' });
    expect(body.status).toBe('decided');
  });
});

describe('yes/no questions', () => {
  it('answers a question without options with "yes" (the first of yes/no)', async () => {
    const { body } = await gateway.decide({ question: 'Is the build green?', request_id: 'yes-no-1' });
    expect(body).toMatchObject({
      status: 'decided',
      decision: 'yes',
      confidence: 0.9,
      provider: 'mock',
      request_id: 'yes-no-1',
      probabilities: { yes: 0.9, no: expect.closeTo(0.1, 10) },
      error: null,
    });
  });

  it('passes context through to the provider without complaint', async () => {
    const { body } = await gateway.decide({
      question: 'Retry?',
      options: ['retry', 'stop'],
      context: { attempt: 3, tags: ['ci'] },
    });
    expect(body).toMatchObject({ status: 'decided', decision: 'retry' });
  });
});

describe('limits that must pass', () => {
  it('accepts a question of exactly 8000 characters', async () => {
    const { body } = await gateway.decide({ question: 'q'.repeat(8000), options: ['a', 'b'] });
    expect(body).toMatchObject({ status: 'decided', decision: 'a', error: null });
  });

  it('accepts exactly 256 options and decides one of them', async () => {
    const options = Array.from({ length: 256 }, (_, i) => `option ${i}`);
    const { body } = await gateway.decide({ question: 'Which one?', options });
    expect(body).toMatchObject({ status: 'decided', decision: 'option 0', error: null });
    expect(Object.keys(body.probabilities)).toHaveLength(256);
  });

  it('accepts an option of exactly 500 characters', async () => {
    const long = 'x'.repeat(500);
    const { body } = await gateway.decide({ question: 'Which one?', options: [long, 'short'] });
    expect(body).toMatchObject({ status: 'decided', decision: long, error: null });
  });

  it('accepts and echoes a request id of exactly 128 characters', async () => {
    const id = 'r'.repeat(128);
    const { body } = await gateway.decide({ question: 'Go?', request_id: id });
    expect(body).toMatchObject({ status: 'decided', request_id: id });
  });

  it('accepts min_confidence at both ends of [0, 1]', async () => {
    const low = await gateway.decide({ question: 'Go?', min_confidence: 0 });
    const high = await gateway.decide({ question: 'Go?', min_confidence: 1 });
    expect(low.body.status).toBe('decided');
    expect(high.body.status).toBe('abstained'); // 0.9 < 1
  });
});

describe('per-request threshold on the default configuration', () => {
  it('abstains when the request asks for more confidence (0.95) than the mock has (0.9)', async () => {
    const { body, isError } = await gateway.decide({
      question: 'Merge?',
      options: ['merge', 'wait'],
      min_confidence: 0.95,
    });
    expect(isError).toBe(false);
    expect(body).toMatchObject({ status: 'abstained', decision: null, confidence: 0.9, provider: 'mock', error: null });
    expect(body.attempts).toHaveLength(1);
  });
});
