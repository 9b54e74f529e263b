import { isRecord } from '../common/is-record';
import { shown } from '../config/setting-types';
import { jsonDepthExceeds } from '../common/json-depth';
import { System1InputError } from '../decisions/input-error';
import { IMAGE_MEDIA_TYPES, QUESTION_TYPES } from '../decisions/question.types';
import type { DecideRequest } from './library.types';

/** Ids that would reach an object's prototype when used as keys. */
const FORBIDDEN_IDS = new Set(['__proto__', 'prototype', 'constructor']);
/** Images shared by every question of a call (the System One extension's limit). */
export const MAX_IMAGES = 4;
/** Deeper JSON is refused before anything walks it recursively (serialisation, engines). */
export const STATE_MAX_DEPTH = 32;

const REQUEST_FIELDS = new Set(['state', 'questions', 'images', 'longContext', 'model', 'signal', 'timeoutMs', 'minConfidence']);
const QUESTION_FIELDS: Record<string, Set<string>> = {
  choice: new Set(['type', 'instructions', 'criteria']),
  noul: new Set(['type', 'instructions', 'criteria']),
  score: new Set(['type', 'instructions', 'criteria']),
  box: new Set(['type', 'instructions']),
};
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks the structure of a library call and throws {@link System1InputError} naming the first thing wrong.
 * What an engine may or may not take (types, counts, image formats) is not checked here: that is per
 * engine and ends in a per-question `unsupported` or `limit_exceeded` instead.
 */
export function checkDecideRequest(request: unknown): asserts request is DecideRequest {
  const fail = (field: string, problem: string): never => {
    throw new System1InputError(field, problem);
  };
  if (!isRecord(request)) fail('the request', 'must be an object with state and questions');
  const call = request as Record<string, unknown>;
  for (const key of Object.keys(call)) if (!REQUEST_FIELDS.has(key)) fail(shown(key), `is not a field of a decision request (fields: ${[...REQUEST_FIELDS].join(', ')})`);

  checkJson('state', call.state, fail);
  checkQuestions(call.questions, fail);
  checkImages(call.images, fail);
  const questions = call.questions as DecideRequest['questions'];
  const boxes = Object.keys(questions).filter((id) => questions[id].type === 'box');
  if (boxes.length > 0 && !(Array.isArray(call.images) && call.images.length > 0)) {
    fail(`questions.${boxes[0]}`, 'is a box question, which needs at least one image in images');
  }

  if (call.longContext !== undefined && typeof call.longContext !== 'boolean') fail('longContext', 'must be true or false');
  if (call.model !== undefined) checkModel(call.model, fail);
  if (call.signal !== undefined && !(call.signal instanceof AbortSignal)) fail('signal', 'must be an AbortSignal');
  if (call.timeoutMs !== undefined && !(Number.isSafeInteger(call.timeoutMs) && (call.timeoutMs as number) > 0)) {
    fail('timeoutMs', `must be a positive whole number of milliseconds (got ${shown(call.timeoutMs)})`);
  }
  if (call.minConfidence !== undefined && !(typeof call.minConfidence === 'number' && call.minConfidence >= 0 && call.minConfidence <= 1)) {
    fail('minConfidence', `must be a number from 0 to 1 (got ${shown(call.minConfidence)})`);
  }
}

type Fail = (field: string, problem: string) => never;

function checkJson(field: string, value: unknown, fail: Fail): void {
  if (!(typeof value === 'string' || typeof value === 'object') || value === null) {
    fail(field, `must be text, a JSON object or a JSON array (got ${value === null ? 'null' : typeof value})`);
  }
  if (jsonDepthExceeds(value, STATE_MAX_DEPTH)) fail(field, `nests more than ${STATE_MAX_DEPTH} levels (or refers to itself)`);
  try {
    JSON.stringify(value);
  } catch {
    fail(field, 'cannot be written as JSON');
  }
}

function checkId(field: string, id: string, fail: Fail): void {
  if (id.trim() === '') fail(field, 'has an empty id');
  if (FORBIDDEN_IDS.has(id)) fail(field, `uses the reserved id ${shown(id)}`);
}

function checkDescribed(field: string, value: unknown, fail: Fail): void {
  const empty = value === '' || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
  if (empty) fail(field, 'must not be empty');
  if (typeof value !== 'string') checkJson(field, value, fail);
}

function checkQuestions(questions: unknown, fail: Fail): void {
  if (!isRecord(questions) || Object.keys(questions).length === 0) {
    fail('questions', 'must be an object with at least one question, keyed by question id');
  }
  for (const [id, question] of Object.entries(questions as Record<string, unknown>)) {
    const at = `questions.${id}`;
    checkId('questions', id, fail);
    if (!isRecord(question)) fail(at, 'must be an object with type and instructions');
    const { type, instructions, criteria } = question as Record<string, unknown>;
    if (typeof type !== 'string' || !(QUESTION_TYPES as readonly string[]).includes(type)) {
      fail(`${at}.type`, `must be one of ${QUESTION_TYPES.join(', ')} (got ${shown(type)})`);
    }
    for (const key of Object.keys(question as object)) {
      if (!QUESTION_FIELDS[type as string].has(key)) fail(`${at}.${key}`, `is not a field of a ${type as string} question`);
    }
    if (instructions === undefined) fail(`${at}.instructions`, 'is missing');
    checkDescribed(`${at}.instructions`, instructions, fail);
    if (type === 'choice') checkChoiceCriteria(`${at}.criteria`, criteria, fail);
    if (type === 'score') checkScoreCriteria(`${at}.criteria`, criteria, fail);
    if (type === 'noul' && criteria !== undefined) checkNoulCriteria(`${at}.criteria`, criteria, fail);
  }
}

function checkChoiceCriteria(at: string, criteria: unknown, fail: Fail): void {
  if (!isRecord(criteria) || Object.keys(criteria).length < 2) {
    fail(at, 'must be an object with at least two candidates, keyed by candidate, each with a description or null');
  }
  for (const [key, description] of Object.entries(criteria as Record<string, unknown>)) {
    checkId(at, key, fail);
    if (description !== null) checkDescribed(`${at}.${key}`, description, fail);
  }
}

function checkScoreCriteria(at: string, criteria: unknown, fail: Fail): void {
  if (!Array.isArray(criteria) || criteria.length < 2) fail(at, 'must be a list of at least two levels, lowest first');
  (criteria as unknown[]).forEach((level, index) => checkDescribed(`${at}[${index}]`, level, fail));
}

function checkNoulCriteria(at: string, criteria: unknown, fail: Fail): void {
  if (!isRecord(criteria)) fail(at, 'must be an object with "true" and/or "false" descriptions');
  for (const [key, description] of Object.entries(criteria as Record<string, unknown>)) {
    if (key !== 'true' && key !== 'false') fail(`${at}.${key}`, 'is not allowed: a yes/no question describes only "true" and "false"');
    checkDescribed(`${at}.${key}`, description, fail);
  }
}

function checkImages(images: unknown, fail: Fail): void {
  if (images === undefined) return;
  if (!Array.isArray(images)) fail('images', 'must be a list of {mediaType, data}');
  if ((images as unknown[]).length > MAX_IMAGES) fail('images', `may hold at most ${MAX_IMAGES} images`);
  (images as unknown[]).forEach((image, index) => {
    const at = `images[${index}]`;
    if (!isRecord(image)) fail(at, 'must be an object {mediaType, data}');
    const { mediaType, data } = image as Record<string, unknown>;
    for (const key of Object.keys(image as object)) if (key !== 'mediaType' && key !== 'data') fail(`${at}.${key}`, 'is not a field of an image');
    if (!(IMAGE_MEDIA_TYPES as readonly unknown[]).includes(mediaType)) fail(`${at}.mediaType`, `must be one of ${IMAGE_MEDIA_TYPES.join(', ')}`);
    if (typeof data !== 'string' || data.length === 0 || !PADDED_BASE64.test(data)) {
      fail(`${at}.data`, 'must be padded standard Base64 without a data: prefix');
    }
  });
}

function checkModel(model: unknown, fail: Fail): void {
  if (!isRecord(model)) fail('model', 'must be an object {provider, model?}');
  const { provider, model: name } = model as Record<string, unknown>;
  for (const key of Object.keys(model as object)) if (key !== 'provider' && key !== 'model') fail(`model.${key}`, 'is not a field of a model reference');
  if (typeof provider !== 'string' || provider.trim() === '') fail('model.provider', 'must name a provider');
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) fail('model.model', 'must be a non-empty model id when given');
}
