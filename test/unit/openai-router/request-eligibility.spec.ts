/** Which OpenAI requests may go to the fast engine (spec/lazycontroller-schemas.txt, "In the request"). */
import fc from 'fast-check';
import type { IncomingHttpHeaders } from 'node:http';
import { Ineligible } from '../../../src/openai-router/ineligible';
import { type Endpoint, IGNORED_OPTIONS, readFastCandidate } from '../../../src/openai-router/request-eligibility';

const SCHEMA = {
  type: 'object',
  properties: { category: { enum: ['food', 'rent'] } },
  required: ['category'],
  additionalProperties: false,
};
const HEADERS: IncomingHttpHeaders = {
  'content-type': 'application/json',
  authorization: 'Bearer sk-caller',
  'x-stainless-lang': 'js',
  'user-agent': 'OpenAI/JS 6.49.0',
};

const chat = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Categorize this bank transaction.' },
    { role: 'user', content: 'NETFLIX.COM 866-579-7172 CA' },
  ],
  response_format: { type: 'json_schema', json_schema: { name: 'Transaction', schema: SCHEMA, strict: true } },
  ...extra,
});

const responses = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  instructions: 'Categorize this bank transaction.',
  input: 'NETFLIX.COM 866-579-7172 CA',
  text: { format: { type: 'json_schema', name: 'Transaction', schema: SCHEMA, strict: true } },
  ...extra,
});

function detail(endpoint: Endpoint, body: unknown, headers: IncomingHttpHeaders = HEADERS, query = ''): string {
  try {
    readFastCandidate(endpoint, body, headers, query);
  } catch (error) {
    if (error instanceof Ineligible) return error.detail;
    throw error;
  }
  throw new Error('expected the request to be ineligible');
}

const CONVERSATION = {
  conversation: [
    { role: 'system', content: 'Categorize this bank transaction.' },
    { role: 'user', content: 'NETFLIX.COM 866-579-7172 CA' },
  ],
};

describe('the state: the conversation as JSON', () => {
  it('chat completions: the page example', () => {
    expect(readFastCandidate('chat.completions', chat(), HEADERS, '')).toEqual({
      endpoint: 'chat.completions',
      schemaName: 'Transaction',
      schema: SCHEMA,
      state: CONVERSATION,
      requestedModel: 'gpt-4o-mini',
    });
  });

  it('responses: instructions first, a string input as the user message', () => {
    expect(readFastCandidate('responses', responses(), HEADERS, '')).toMatchObject({
      schemaName: 'Transaction',
      schema: SCHEMA,
      state: CONVERSATION,
    });
  });

  it('developer messages appear as system; multi-part text is joined line by line; assistant turns are kept', () => {
    const body = chat({
      messages: [
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Categorize.' },
            { type: 'text', text: 'Be brief.' },
          ],
        },
        { role: 'user', content: 'first', name: 'alice' },
        { role: 'assistant', content: '{"category":"food"}', tool_calls: [], refusal: null },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'and' },
            { type: 'text', text: 'this?' },
          ],
        },
      ],
    });
    expect(readFastCandidate('chat.completions', body, HEADERS, '').state).toEqual({
      conversation: [
        { role: 'system', content: 'Categorize.\nBe brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: '{"category":"food"}' },
        { role: 'user', content: 'and\nthis?' },
      ],
    });
  });

  it('responses message items, with input_text and output_text parts', () => {
    const body = responses({
      instructions: undefined,
      input: [
        { role: 'developer', content: 'Categorize.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'ok', annotations: [] }],
        },
      ],
    });
    expect(readFastCandidate('responses', body, HEADERS, '').state).toEqual({
      conversation: [
        { role: 'system', content: 'Categorize.' },
        { role: 'user', content: 'a\nb' },
        { role: 'assistant', content: 'ok' },
      ],
    });
  });
});

describe('parameters that do not change the answer are ignored', () => {
  const values: Record<string, unknown> = {
    reasoning: { effort: 'low' },
    metadata: { k: 'v' },
    store: false,
    truncation: 'auto',
  };
  it.each([...IGNORED_OPTIONS])('%s', (name) => {
    const value =
      values[name] ??
      (name.includes('tokens') || name === 'seed' || name === 'timeout'
        ? 100
        : name.startsWith('top') || name.endsWith('penalty') || name === 'temperature'
          ? 0.5
          : 'x');
    expect(() => readFastCandidate('chat.completions', chat({ [name]: value }), HEADERS, '')).not.toThrow();
    expect(() => readFastCandidate('responses', responses({ [name]: value }), HEADERS, '')).not.toThrow();
  });

  it('and so are options at their harmless defaults, or null', () => {
    expect(() =>
      readFastCandidate(
        'chat.completions',
        chat({ stream: false, n: 1, logprobs: false, tools: [], stop: null }),
        HEADERS,
        '',
      ),
    ).not.toThrow();
    expect(() =>
      readFastCandidate(
        'responses',
        responses({ text: { format: responses().text.format, verbosity: 'low' } }),
        HEADERS,
        '',
      ),
    ).not.toThrow();
  });
});

describe('requests that go to the slow model, with the option or message named', () => {
  it.each([
    [
      'tools',
      chat({ tools: [{ type: 'function', function: { name: 'f' } }] }),
      'option tools is not one the fast engine can honour',
    ],
    ['tool_choice', chat({ tool_choice: 'auto' }), 'option tool_choice'],
    ['stream', chat({ stream: true }), 'option stream=true'],
    ['stream_options', chat({ stream_options: { include_usage: true } }), 'option stream_options'],
    ['logprobs', chat({ logprobs: true }), 'option logprobs=true'],
    ['top_logprobs', chat({ top_logprobs: 2 }), 'option top_logprobs'],
    ['n > 1', chat({ n: 3 }), 'option n=3'],
    ['audio', chat({ audio: { voice: 'alloy', format: 'mp3' } }), 'option audio'],
    ['modalities', chat({ modalities: ['text', 'audio'] }), 'option modalities'],
    ['prediction', chat({ prediction: { type: 'content', content: 'x' } }), 'option prediction'],
    ['stop', chat({ stop: ['\n'] }), 'option stop'],
    ['logit_bias', chat({ logit_bias: { 1: 2 } }), 'option logit_bias'],
    ['web_search_options', chat({ web_search_options: {} }), 'option web_search_options'],
    ['an extra_body key', chat({ guided_json: {} }), 'option guided_json'],
    ['no response_format', chat({ response_format: undefined }), 'asks for no JSON schema'],
    ['json_object', chat({ response_format: { type: 'json_object' } }), 'response_format.type is not json_schema'],
    [
      'a json_schema without schema',
      chat({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }),
      'has no schema',
    ],
    [
      'an image part',
      chat({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image_url', image_url: { url: 'data:' } },
            ],
          },
        ],
      }),
      'message 0 part 1 is not plain text ("image_url")',
    ],
    [
      'an audio part',
      chat({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }),
      'message 0 part 0 is not plain text ("input_audio")',
    ],
    [
      'a file part',
      chat({ messages: [{ role: 'user', content: [{ type: 'file', file: {} }] }] }),
      'message 0 part 0 is not plain text ("file")',
    ],
    [
      'a tool message',
      chat({ messages: [{ role: 'tool', content: 'r', tool_call_id: 'c' }] }),
      'message 0 is a tool message',
    ],
    [
      'a function message',
      chat({ messages: [{ role: 'function', content: 'r', name: 'f' }] }),
      'message 0 is a tool message',
    ],
    [
      'a tool call in the history',
      chat({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c' }] }] }),
      'message 0 carries a tool call',
    ],
    [
      'an assistant audio turn',
      chat({ messages: [{ role: 'assistant', content: 'x', audio: { id: 'a' } }] }),
      'message 0 has audio',
    ],
    ['no messages', chat({ messages: [] }), 'the request has no messages'],
    ['a message without text', chat({ messages: [{ role: 'user' }] }), 'message 0 has no text content'],
    ['an unknown role', chat({ messages: [{ role: 'critic', content: 'x' }] }), 'message 0 has the role "critic"'],
  ])('chat completions: %s', (_name, body, expected) => {
    expect(detail('chat.completions', body)).toContain(expected);
  });

  it.each([
    ['tools', responses({ tools: [{ type: 'web_search' }] }), 'option tools'],
    ['stream', responses({ stream: true }), 'option stream=true'],
    ['previous_response_id', responses({ previous_response_id: 'resp_1' }), 'option previous_response_id'],
    ['background', responses({ background: true }), 'option background'],
    ['conversation', responses({ conversation: 'conv_1' }), 'option conversation'],
    ['include', responses({ include: ['message.output_text.logprobs'] }), 'option include'],
    ['a prompt template', responses({ prompt: { id: 'pmpt_1' } }), 'option prompt'],
    [
      'a non-message item',
      responses({ input: [{ type: 'function_call_output', call_id: 'c', output: 'r' }] }),
      'input item 0 is a "function_call_output" item, not a message',
    ],
    [
      'an item reference',
      responses({ input: [{ type: 'item_reference', id: 'msg_1' }] }),
      'input item 0 is a "item_reference" item',
    ],
    [
      'an image part',
      responses({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:' }] }] }),
      'input item 0 part 0 is not plain text ("input_image")',
    ],
    [
      'a file part',
      responses({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }),
      'not plain text ("input_file")',
    ],
    ['plain text format', responses({ text: { format: { type: 'text' } } }), 'text.format.type is not json_schema'],
    ['no text', responses({ text: undefined }), 'no text.format'],
  ])('responses: %s', (_name, body, expected) => {
    expect(detail('responses', body)).toContain(expected);
  });

  it('extra_headers: a header outside the ordinary ones, named without its value', () => {
    expect(detail('chat.completions', chat(), { ...HEADERS, 'openai-beta': 'assistants=v2' })).toBe(
      'the request carries header "openai-beta" (extra_headers)',
    );
  });

  it('extra_query', () => {
    expect(detail('chat.completions', chat(), HEADERS, '?api-version=2024-10-01')).toBe(
      'the request has query parameters (extra_query)',
    );
  });

  it('a body that is not an object, or not JSON by its content type', () => {
    expect(detail('chat.completions', [chat()])).toBe('the body is not a JSON object');
    expect(detail('chat.completions', chat(), { ...HEADERS, 'content-type': 'text/plain' })).toBe(
      'the body is not sent as application/json',
    );
  });

  it('never quotes message text in a detail', () => {
    const secret = 'my card number is 4111';
    const found = detail(
      'chat.completions',
      chat({ messages: [{ role: 'user', content: [{ type: 'image_url', text: secret }] }] }),
    );
    expect(found).not.toContain(secret);
  });
});

/**
 * The headers the OpenAI SDKs send of their own (openai-node 6 and openai-python 1.x/2.x): platform telemetry,
 * retries and timeouts, the helper that made the call, and the raw-response mark of Python's
 * `with_raw_response` (`true`; `raw` in older releases) and `with_streaming_response` (`stream`).
 */
const SDK_HEADERS: Record<string, string[]> = {
  'x-stainless-lang': ['js', 'python'],
  'x-stainless-package-version': ['6.49.0', '1.109.1'],
  'x-stainless-os': ['Linux', 'MacOS', 'Windows', 'Unknown'],
  'x-stainless-arch': ['x64', 'arm64', 'other:riscv64'],
  'x-stainless-runtime': ['node', 'CPython', 'deno', 'bun'],
  'x-stainless-runtime-version': ['v20.20.2', '3.12.4'],
  'x-stainless-async': ['false', 'async:asyncio', 'async:trio'],
  'x-stainless-retry-count': ['0', '1', '2'],
  'x-stainless-timeout': ['600', '30'],
  'x-stainless-read-timeout': ['600', '30.0'],
  'x-stainless-raw-response': ['true', 'raw', 'stream'],
  'x-stainless-streamed-raw-response': ['true'],
  'x-stainless-helper-method': ['chat.completions.parse', 'responses.parse'],
  'x-stainless-helper': ['beta.chat.completions.parse'],
  'x-stainless-stream-helper': ['beta.chat.completions'],
  'x-stainless-poll-helper': ['true'],
  'x-stainless-custom-poll-interval': ['500'],
};

describe("the OpenAI SDKs' own headers never change the route", () => {
  it('a with_raw_response call (what reads x-system1-route) stays eligible, the same as the plain call', () => {
    const plain = readFastCandidate('chat.completions', chat(), HEADERS, '');
    for (const mark of SDK_HEADERS['x-stainless-raw-response']) {
      const headers = { ...HEADERS, 'x-stainless-raw-response': mark };
      expect(readFastCandidate('chat.completions', chat(), headers, '')).toEqual(plain);
      expect(readFastCandidate('responses', responses(), headers, '')).toEqual(
        readFastCandidate('responses', responses(), HEADERS, ''),
      );
    }
  });

  const sdkHeaders = fc.dictionary(
    fc.oneof(
      fc.constantFrom(...Object.keys(SDK_HEADERS)),
      // one a later SDK release may add
      fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,30}$/).map((suffix) => `x-stainless-${suffix}`),
    ),
    fc.oneof(
      fc.constantFrom(...Object.values(SDK_HEADERS).flat()),
      fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,40}$/),
    ),
    { minKeys: 1, maxKeys: 8 },
  );

  it('any of them, with any value, leaves an eligible request eligible and an ineligible one with its reason', () => {
    fc.assert(
      fc.property(sdkHeaders, fc.constantFrom<Endpoint>('chat.completions', 'responses'), (added, endpoint) => {
        const headers = { ...HEADERS, ...added };
        const eligible = endpoint === 'chat.completions' ? chat() : responses();
        expect(readFastCandidate(endpoint, eligible, headers, '')).toEqual(
          readFastCandidate(endpoint, eligible, HEADERS, ''),
        );
        const streamed = endpoint === 'chat.completions' ? chat({ stream: true }) : responses({ stream: true });
        expect(detail(endpoint, streamed, headers)).toBe(detail(endpoint, streamed, HEADERS));
      }),
      { numRuns: 300 },
    );
  });
});
