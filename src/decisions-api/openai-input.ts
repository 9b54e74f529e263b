import { IMAGE_MEDIA_TYPES, type ImageAttachment, type ImageMediaType } from '../decisions/questions/question.types';
import { join, listAt, objectAt, oneOfAt, textAt } from './field-checks';
import { WireInputError } from './wire-reply';

/** The API's most image parts in one request. */
export const MAX_IMAGE_PARTS = 128;
/** The most items `input` may hold: bounded, so one request cannot make the state without end. */
const MAX_INPUT_ITEMS = 2048;
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is;
const BREAKPOINT = 'prompt_cache_breakpoint';

/**
 * The images of a request, in the order its parts give them: each a data URL turned into the pipeline's
 * ImageAttachment. An http(s) URL is refused, naming its field: this server never fetches a URL a caller
 * gives it (no engine it serves takes image URLs).
 */
export class RequestImages {
  readonly images: ImageAttachment[] = [];

  /** The image at `param`; returns its place among the request's images (1-based, as the state names it). */
  add(url: unknown, param: string): number {
    const text = textAt(url, param);
    if (/^https?:/i.test(text))
      throw new WireInputError(
        param,
        'is an http(s) URL: this server never fetches images; send the image as a base64 data URL',
      );
    const parts = DATA_URL.exec(text);
    if (!parts) throw new WireInputError(param, 'must be a base64 data URL (data:image/png;base64,...)');
    const mediaType = parts[1].toLowerCase();
    if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType))
      throw new WireInputError(param, `must be an image of type ${IMAGE_MEDIA_TYPES.join(', ')} (got ${mediaType})`);
    if (parts[2] === '' || !PADDED_BASE64.test(parts[2]))
      throw new WireInputError(param, 'must hold padded standard base64 after "base64,"');
    if (this.images.length >= MAX_IMAGE_PARTS)
      throw new WireInputError(param, `is over the limit of ${MAX_IMAGE_PARTS} image parts in one request`);
    this.images.push({ mediaType: mediaType as ImageMediaType, data: parts[2] });
    return this.images.length;
  }
}

type Rendered = string | Record<string, unknown> | unknown[];

/**
 * The state of a request from its `input`: a string stays the text it is, one user message of text alone is
 * that text, and anything else is a JSON list of the items (messages with their parts as text, JSON data and
 * `[image N]` markers, tool calls and their outputs as the objects they are), which engines read as JSON text.
 */
export function renderInput(input: unknown, images: RequestImages): Rendered {
  if (typeof input === 'string') return input;
  const items = listAt(input, 'input', 1, MAX_INPUT_ITEMS).map((item, index) =>
    renderItem(item, `input[${index}]`, images),
  );
  checkCallIds(input as Record<string, unknown>[]);
  const [only] = items;
  if (items.length === 1 && isRecordOf(only) && only.role === 'user' && typeof only.content === 'string')
    return only.content;
  return items;
}

const isRecordOf = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ITEM_FIELDS: Record<string, readonly string[]> = {
  function_call: ['type', 'arguments', 'call_id', 'name', 'id', 'namespace', 'status'],
  function_call_output: ['type', 'call_id', 'output', 'id', 'status'],
  custom_tool_call: ['type', 'call_id', 'input', 'name', 'id', 'namespace', 'status'],
  custom_tool_call_output: ['type', 'call_id', 'output', 'id', 'status'],
};
const STATUSES = ['in_progress', 'completed', 'incomplete'] as const;

function renderItem(item: unknown, param: string, images: RequestImages): Record<string, unknown> {
  const type = isRecordOf(item) ? item.type : undefined;
  if (type === undefined || type === 'message') return renderMessage(item, param, images);
  const kind = oneOfAt(type, join(param, 'type'), ['message', ...Object.keys(ITEM_FIELDS)]);
  const fields = objectAt(item, param, ITEM_FIELDS[kind]);
  textAt(fields.call_id, join(param, 'call_id'));
  oneOfAt(fields.status, join(param, 'status'), STATUSES, true);
  for (const optional of ['id', 'namespace'])
    if (fields[optional] !== undefined && fields[optional] !== null) textAt(fields[optional], join(param, optional));
  if (kind === 'function_call' || kind === 'custom_tool_call') {
    const argument = kind === 'function_call' ? 'arguments' : 'input';
    textAt(fields.name, join(param, 'name'));
    textAt(fields[argument], join(param, argument), { empty: true });
    return { type: kind, call_id: fields.call_id, name: fields.name, [argument]: fields[argument] };
  }
  return { type: kind, call_id: fields.call_id, output: renderOutput(fields.output, join(param, 'output'), images) };
}

function renderOutput(output: unknown, param: string, images: RequestImages): Rendered {
  if (typeof output === 'string') return output;
  return listAt(output, param, 1, MAX_INPUT_ITEMS).map((part, index) =>
    renderPart(part, join(param, index), images, ['input_text', 'input_image']),
  );
}

const ROLES = ['user', 'developer', 'system', 'assistant'] as const;

function renderMessage(item: unknown, param: string, images: RequestImages): Record<string, unknown> {
  const message = objectAt(item, param, ['type', 'role', 'content', 'phase']);
  const role = oneOfAt(message.role, join(param, 'role'), ROLES);
  if (role === 'assistant') oneOfAt(message.phase, join(param, 'phase'), ['commentary', 'final_answer'], true);
  else if (message.phase !== undefined)
    throw new WireInputError(join(param, 'phase'), 'is for assistant messages only');
  const contentParam = join(param, 'content');
  if (typeof message.content === 'string') return { role, content: message.content };
  const parts = listAt(message.content, contentParam, 1, MAX_INPUT_ITEMS);
  const types = {
    user: ['input_text', 'input_image', 'input_json'],
    developer: ['input_text'],
    system: ['input_text'],
    assistant: ['output_text', 'refusal'],
  }[role];
  const rendered = parts.map((part, index) => renderPart(part, join(contentParam, index), images, types));
  const textOnly = rendered.every((part) => typeof part === 'string');
  return { role, content: textOnly ? rendered.join('\n\n') : rendered };
}

/** One content part as the state shows it: its text, its JSON data, or `[image N]` for the request's Nth image. */
function renderPart(part: unknown, param: string, images: RequestImages, types: readonly string[]): unknown {
  const type = oneOfAt(isRecordOf(part) ? part.type : undefined, join(param, 'type'), types);
  switch (type) {
    case 'input_text':
    case 'output_text': {
      const fields = objectAt(part, param, ['type', 'text', ...(type === 'input_text' ? [BREAKPOINT] : [])]);
      checkBreakpoint(fields[BREAKPOINT], join(param, BREAKPOINT));
      return textAt(fields.text, join(param, 'text'), { empty: true });
    }
    case 'refusal':
      return `(refused: ${textAt(objectAt(part, param, ['type', 'refusal']).refusal, join(param, 'refusal'), { empty: true })})`;
    case 'input_json': {
      const fields = objectAt(part, param, ['type', 'data']);
      if (!isRecordOf(fields.data) && !Array.isArray(fields.data))
        throw new WireInputError(join(param, 'data'), 'must be a JSON object or an array of objects');
      return fields.data;
    }
    default: {
      const fields = objectAt(part, param, ['type', 'image_url', 'detail', BREAKPOINT]);
      oneOfAt(fields.detail, join(param, 'detail'), ['low', 'high', 'auto', 'original'], true);
      checkBreakpoint(fields[BREAKPOINT], join(param, BREAKPOINT));
      return `[image ${images.add(fields.image_url, join(param, 'image_url'))}]`;
    }
  }
}

/** A prompt cache breakpoint: accepted (no engine served here caches prompts), checked for its shape. */
function checkBreakpoint(value: unknown, param: string): void {
  if (value === undefined || value === null) return;
  oneOfAt(objectAt(value, param, ['mode']).mode, join(param, 'mode'), ['explicit']);
}

/** Each tool output names a call made before it (the API's rule), so the state never holds an orphan output. */
function checkCallIds(items: Record<string, unknown>[]): void {
  const calls = new Set<unknown>();
  for (const [index, item] of items.entries()) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') calls.add(item.call_id);
    if ((item.type === 'function_call_output' || item.type === 'custom_tool_call_output') && !calls.has(item.call_id))
      throw new WireInputError(`input[${index}].call_id`, 'names no tool call made before it in input');
  }
}
