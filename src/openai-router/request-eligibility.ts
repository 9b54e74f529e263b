import type { IncomingHttpHeaders } from 'node:http';
import { isRecord } from '../common/is-record';
import { ownValue } from '../common/own-keys';
import { Ineligible, shownName } from './ineligible';

/**
 * Whether an OpenAI request may go to the fast engine at all, before its schema is read
 * (`spec/lazycontroller-schemas.txt`, "What sends a request to the slow model"): plain-text messages only,
 * and no option other than sampling, limits and bookkeeping. Reads the request; never changes it.
 */

export type Endpoint = 'chat.completions' | 'responses';

export interface ConversationEntry {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The fast engine's state: the conversation as JSON, one entry per message. */
export interface ConversationState {
  [key: string]: unknown;
  conversation: ConversationEntry[];
}

export interface FastCandidate {
  endpoint: Endpoint;
  schemaName: string;
  schema: unknown;
  state: ConversationState;
  /** The model the caller asked for, echoed in a Responses answer. */
  requestedModel?: string;
}

/** Parameters that do not change what a correct answer is: read past, never honoured. */
export const IGNORED_OPTIONS: ReadonlySet<string> = new Set([
  'model',
  'temperature',
  'top_p',
  'seed',
  'max_tokens',
  'max_completion_tokens',
  'max_output_tokens',
  'frequency_penalty',
  'presence_penalty',
  'reasoning',
  'reasoning_effort',
  'verbosity',
  'service_tier',
  'metadata',
  'store',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'truncation',
  'timeout',
]);

/** Options that ask for nothing at their default value (`stream: false`, `n: 1`). */
const HARMLESS_DEFAULTS: Record<string, (value: unknown) => boolean> = {
  stream: (value) => value === false,
  n: (value) => value === 1,
  logprobs: (value) => value === false,
  tools: (value) => Array.isArray(value) && value.length === 0,
};

/** The fields each endpoint's reading below consumes. */
const CONSUMED: Record<Endpoint, ReadonlySet<string>> = {
  'chat.completions': new Set(['messages', 'response_format']),
  responses: new Set(['input', 'instructions', 'text']),
};

/**
 * Headers that do not change what a correct answer is: what any client sends, and what reverse proxies, load
 * balancers and tracing add on the way (they are still forwarded upstream as they came). Any other header
 * may be an `extra_headers` that changes the answer upstream (`openai-beta`, a provider's own switch), so it
 * sends the request there. Only names are ever shown. The one list of them, with the families below.
 */
const ORDINARY_HEADERS = new Set([
  // any HTTP client
  'host',
  'connection',
  'keep-alive',
  'content-type',
  'content-length',
  'transfer-encoding',
  'expect',
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'origin',
  'referer',
  'cache-control',
  'pragma',
  'priority',
  // the OpenAI API's own bookkeeping, and this router's token
  'authorization',
  'openai-organization',
  'openai-project',
  'idempotency-key',
  'x-system1-token',
  // reverse proxies and load balancers (nginx, Caddy, Traefik, Envoy, cloud load balancers, CDNs); Via also
  // carries this router's own hop, which the loop check reads before eligibility
  'forwarded',
  'via',
  'x-real-ip',
  'true-client-ip',
  'cdn-loop',
  // tracing (W3C Trace Context and Baggage, Zipkin B3, AWS X-Ray, Google Cloud, Jaeger, Sentry) and request ids
  'traceparent',
  'tracestate',
  'baggage',
  'b3',
  'x-amzn-trace-id',
  'x-cloud-trace-context',
  'uber-trace-id',
  'sentry-trace',
  'x-request-id',
  'x-correlation-id',
]);

/**
 * Header families added on the way, by the same kinds of hands: browser fetch metadata, the OpenAI SDKs' own
 * (`X-Stainless-*`), proxies (`X-Forwarded-For`, `-Proto`, `-Host`, ...), Envoy, Cloudflare, Zipkin B3 and Datadog.
 * The SDKs' headers tell the client's platform, retries and timeout, which helper made the call, and whether the
 * program reads the raw HTTP response (`X-Stainless-Raw-Response`, Python's `with_raw_response` and
 * `with_streaming_response`). That last one sends lazycontroller, an in-process wrapper that cannot make an HTTP
 * response, to the slow model; this router's answer is an HTTP response either way, and the raw response is how
 * an SDK program reads `x-system1-route`, so reading the route must not change it.
 */
const ORDINARY_PREFIXES = ['sec-', 'x-stainless-', 'x-forwarded-', 'x-envoy-', 'cf-', 'x-b3-', 'x-datadog-'];

export function readFastCandidate(
  endpoint: Endpoint,
  body: unknown,
  headers: IncomingHttpHeaders,
  query: string,
): FastCandidate {
  checkTransport(headers, query);
  if (!isRecord(body)) throw new Ineligible('the body is not a JSON object');
  checkOptions(endpoint, body);
  const requestedModel = typeof body.model === 'string' ? body.model : undefined;
  if (endpoint === 'chat.completions') {
    return {
      endpoint,
      requestedModel,
      state: { conversation: chatConversation(body.messages) },
      ...chatFormat(body.response_format),
    };
  }
  return {
    endpoint,
    requestedModel,
    state: { conversation: responsesConversation(body.instructions, body.input) },
    ...responsesFormat(body.text),
  };
}

function checkTransport(headers: IncomingHttpHeaders, query: string): void {
  if (query !== '') throw new Ineligible('the request has query parameters (extra_query)');
  const type = String(headers['content-type'] ?? '').toLowerCase();
  if (!/^application\/json\s*(;|$)/.test(type)) throw new Ineligible('the body is not sent as application/json');
  for (const name of Object.keys(headers)) {
    if (!ORDINARY_HEADERS.has(name) && !ORDINARY_PREFIXES.some((prefix) => name.startsWith(prefix)))
      throw new Ineligible(`the request carries header ${shownName(name)} (extra_headers)`);
  }
}

function checkOptions(endpoint: Endpoint, body: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(body)) {
    // An explicit null is how several clients spell "not given".
    if (value === null || value === undefined || IGNORED_OPTIONS.has(name) || CONSUMED[endpoint].has(name)) continue;
    // ownValue: an option named `constructor` or `toString` is unknown, not Object.prototype's function.
    if (ownValue(HARMLESS_DEFAULTS, name)?.(value)) continue;
    throw new Ineligible(`option ${name}${describeValue(name, value)} is not one the fast engine can honour`);
  }
}

/** Shows the value of the few options whose value is the whole story (stream=true, n=3); never text. */
function describeValue(name: string, value: unknown): string {
  return Object.hasOwn(HARMLESS_DEFAULTS, name) && (typeof value === 'boolean' || typeof value === 'number')
    ? `=${value}`
    : '';
}

function chatFormat(format: unknown): Pick<FastCandidate, 'schemaName' | 'schema'> {
  if (!isRecord(format) || format.type !== 'json_schema')
    throw new Ineligible('the request asks for no JSON schema (response_format.type is not json_schema)');
  const spec = format.json_schema;
  if (!isRecord(spec) || !isRecord(spec.schema)) throw new Ineligible('response_format.json_schema has no schema');
  return { schemaName: schemaName(spec.name), schema: spec.schema };
}

function responsesFormat(text: unknown): Pick<FastCandidate, 'schemaName' | 'schema'> {
  if (!isRecord(text)) throw new Ineligible('the request asks for no JSON schema (no text.format)');
  for (const name of Object.keys(text)) {
    if (name !== 'format' && name !== 'verbosity' && text[name] !== null)
      throw new Ineligible(`option text.${name} is not one the fast engine can honour`);
  }
  const format = text.format;
  if (!isRecord(format) || format.type !== 'json_schema')
    throw new Ineligible('the request asks for no JSON schema (text.format.type is not json_schema)');
  if (!isRecord(format.schema)) throw new Ineligible('text.format has no schema');
  return { schemaName: schemaName(format.name), schema: format.schema };
}

const schemaName = (name: unknown) => (typeof name === 'string' && name.trim() !== '' ? name.trim() : 'answer');

const ROLES: Record<string, ConversationEntry['role']> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
};

/** Message fields that carry no instruction of their own when empty. */
const EMPTY_WHEN_NULL = new Set(['tool_calls', 'function_call', 'audio', 'refusal', 'annotations']);

function chatConversation(messages: unknown): ConversationEntry[] {
  if (!Array.isArray(messages) || messages.length === 0) throw new Ineligible('the request has no messages');
  return messages.map((message, i) => {
    const where = `message ${i}`;
    if (!isRecord(message)) throw new Ineligible(`${where} is not an object`);
    const role = roleOf(message.role, where);
    for (const [name, value] of Object.entries(message)) {
      if (name === 'role' || name === 'content' || name === 'name') continue;
      if (value === null || (Array.isArray(value) && value.length === 0)) continue;
      if (name === 'tool_calls' || name === 'function_call') throw new Ineligible(`${where} carries a tool call`);
      if (EMPTY_WHEN_NULL.has(name)) throw new Ineligible(`${where} has ${name}, which is not plain text`);
      throw new Ineligible(`${where} has a field ${shownName(name)} the fast engine cannot honour`);
    }
    return { role, content: textOf(message.content, where, ['text']) };
  });
}

function responsesConversation(instructions: unknown, input: unknown): ConversationEntry[] {
  const conversation: ConversationEntry[] = [];
  if (typeof instructions === 'string') conversation.push({ role: 'system', content: instructions });
  else if (instructions !== undefined && instructions !== null) throw new Ineligible('instructions is not plain text');
  if (typeof input === 'string') return [...conversation, { role: 'user', content: input }];
  if (!Array.isArray(input) || input.length === 0) throw new Ineligible('the request has no input');
  input.forEach((item, i) => {
    const where = `input item ${i}`;
    if (!isRecord(item)) throw new Ineligible(`${where} is not an object`);
    if (item.type !== undefined && item.type !== 'message')
      throw new Ineligible(`${where} is a ${shownName(String(item.type))} item, not a message`);
    for (const name of Object.keys(item)) {
      if (!['type', 'role', 'content', 'id', 'status'].includes(name) && item[name] !== null)
        throw new Ineligible(`${where} has a field ${shownName(name)} the fast engine cannot honour`);
    }
    conversation.push({
      role: roleOf(item.role, where),
      content: textOf(item.content, where, ['input_text', 'output_text']),
    });
  });
  return conversation;
}

function roleOf(role: unknown, where: string): ConversationEntry['role'] {
  if (role === 'tool' || role === 'function') throw new Ineligible(`${where} is a tool message`);
  const mapped = typeof role === 'string' ? ROLES[role] : undefined;
  if (!mapped) throw new Ineligible(`${where} has the role ${shownName(String(role))}`);
  return mapped;
}

/** A message's text: a string, or text parts joined line by line; any other part is not plain text. */
function textOf(content: unknown, where: string, textParts: string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw new Ineligible(`${where} has no text content`);
  return content
    .map((part, j) => {
      if (!isRecord(part) || !textParts.includes(String(part.type)) || typeof part.text !== 'string') {
        const type = isRecord(part) && typeof part.type === 'string' ? ` (${shownName(part.type)})` : '';
        throw new Ineligible(`${where} part ${j} is not plain text${type}`);
      }
      return part.text;
    })
    .join('\n');
}
