'use strict';
/**
 * Reads a System One request (wire-contracts §1.1) into what a cross-encoder scores: for each question, the
 * query text (its instructions) and the candidate texts, one (query, candidate) pair each. Anything the
 * server cannot answer is a RequestError whose message names the field; nothing here touches the model.
 */
const LIMITS = require('./limits');

class RequestError extends Error {}

const TYPES = ['choice', 'noul', 'score'];

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}

/** A string as it is, anything else as compact JSON text (as llama-server renders a non-string state). */
function asText(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isEmpty(value) {
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

/** `instructions`: a non-empty string, object or array (llama-server's rule); the query a pair starts with. */
function readInstructions(where, instructions) {
  const shapeOk = typeof instructions === 'string' || Array.isArray(instructions) || isPlainObject(instructions);
  if (!shapeOk || isEmpty(instructions)) {
    throw new RequestError(
      `${where}: "instructions" must be a non-empty string, object or array, not ${describe(instructions)}`,
    );
  }
  return asText(instructions);
}

/** A description that says something, else the key (a null description means the key stands for itself). */
function candidateText(key, description) {
  return typeof description === 'string' && description.trim() !== '' ? description : key;
}

function readChoice(where, criteria) {
  // Laya's list of labels is accepted too: each label is its own description.
  if (Array.isArray(criteria)) {
    if (!criteria.every((label) => typeof label === 'string' && label !== '')) {
      throw new RequestError(`${where}: a list of "criteria" must hold non-empty strings`);
    }
    if (new Set(criteria).size !== criteria.length)
      throw new RequestError(`${where}: the "criteria" list repeats a label`);
    criteria = Object.fromEntries(criteria.map((label) => [label, null]));
  }
  if (!isPlainObject(criteria) || Object.keys(criteria).length === 0) {
    throw new RequestError(
      `${where}: "criteria" must be an object mapping each option to its description (or null), not ${describe(criteria)}`,
    );
  }
  return Object.entries(criteria).map(([key, description]) => {
    if (description !== null && typeof description !== 'string') {
      throw new RequestError(
        `${where}: the description of option ${JSON.stringify(key)} must be a string or null, not ${describe(description)}`,
      );
    }
    return { key, text: candidateText(key, description) };
  });
}

/**
 * A reranker has no yes/no head: it scores the two statements "true" and "false" against the query as a
 * two-candidate choice ("yes" and "no" when the criteria do not say), and P(true) is the answer.
 */
function readNoul(where, criteria) {
  if (criteria === undefined || criteria === null) criteria = {};
  if (!isPlainObject(criteria))
    throw new RequestError(
      `${where}: "criteria" of a noul question must be {"true": ..., "false": ...}, not ${describe(criteria)}`,
    );
  for (const [key, value] of Object.entries(criteria)) {
    if (key !== 'true' && key !== 'false')
      throw new RequestError(
        `${where}: "criteria" of a noul question takes only "true" and "false", not ${JSON.stringify(key)}`,
      );
    if (value !== null && typeof value !== 'string')
      throw new RequestError(`${where}: criteria.${key} must be a string or null, not ${describe(value)}`);
  }
  return [
    { key: 'true', text: candidateText('yes', criteria.true) },
    { key: 'false', text: candidateText('no', criteria.false) },
  ];
}

/** Score levels, lowest first, each one candidate keyed by its index ("0", "1", ...). */
function readScore(where, criteria) {
  if (!Array.isArray(criteria) || criteria.length < LIMITS.minLevels || criteria.length > LIMITS.maxLevels) {
    throw new RequestError(
      `${where}: "criteria" must be an array of ${LIMITS.minLevels} to ${LIMITS.maxLevels} levels, lowest first, not ${describe(criteria)}${Array.isArray(criteria) ? ` of ${criteria.length}` : ''}`,
    );
  }
  return criteria.map((level, index) => {
    if (typeof level !== 'string' || level.trim() === '')
      throw new RequestError(`${where}: level ${index} must be a non-empty string, not ${describe(level)}`);
    return { key: String(index), text: level };
  });
}

const READERS = { choice: readChoice, noul: readNoul, score: readScore };

/**
 * The request's questions in the order sent, each `{id, type, instructions, candidates: [{key, text}]}`,
 * and its state as text ('' for none). Throws RequestError for anything it cannot answer.
 */
function readRequest(body) {
  if (!isPlainObject(body))
    throw new RequestError(`the body must be a JSON object with "state" and "questions", not ${describe(body)}`);
  if (body.model !== undefined && typeof body.model !== 'string')
    throw new RequestError(`"model" must be a string, not ${describe(body.model)}`);
  if (body.state === undefined || body.state === null)
    throw new RequestError('"state" is required (use {} for no context)');
  if (Array.isArray(body.images) && body.images.length > 0) {
    throw new RequestError('"images" cannot be answered: a text cross-encoder does not see images');
  }
  const { questions } = body;
  if (!isPlainObject(questions) || Object.keys(questions).length === 0) {
    throw new RequestError(`"questions" must be a non-empty object keyed by question id, not ${describe(questions)}`);
  }
  const entries = Object.entries(questions);
  if (entries.length > LIMITS.maxQuestions) {
    throw new RequestError(`too many questions: ${entries.length}, at most ${LIMITS.maxQuestions} in one request`);
  }
  let options = 0;
  const read = entries.map(([id, question]) => {
    const where = `questions.${id}`;
    if (!isPlainObject(question)) throw new RequestError(`${where} must be an object, not ${describe(question)}`);
    if (!TYPES.includes(question.type)) {
      throw new RequestError(
        `${where}: type ${JSON.stringify(question.type)} is not answered by a reranker (it answers ${TYPES.join(', ')})`,
      );
    }
    const instructions = readInstructions(where, question.instructions);
    const candidates = READERS[question.type](where, question.criteria);
    options += candidates.length;
    return { id, type: question.type, instructions, candidates };
  });
  if (options > LIMITS.maxOptions) {
    throw new RequestError(
      `too many options: ${options} in all (each option, yes/no pair and score level is scored), at most ${LIMITS.maxOptions} in one request`,
    );
  }
  return { questions: read, state: isEmpty(body.state) ? '' : asText(body.state) };
}

module.exports = { readRequest, RequestError };
