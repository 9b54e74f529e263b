'use strict';
/**
 * Answers a System One request with a cross-encoder: each question's query (its instructions, then the
 * state) is paired with each of its candidates, the request's pairs are scored together (in runs of similar
 * length, lib/length-batches.js), and each question's logits become its answer. Requests take turns on the model; a bounded number wait.
 */
const LIMITS = require('./limits');
const { readRequest } = require('./request');
const { answerOf } = require('./answers');
const { TokenCache } = require('./token-cache');

class BusyError extends Error {}

class Reranker {
  /** @param {import('./cross-encoder').CrossEncoder} model */
  constructor(model, { maxQueued = LIMITS.maxQueued } = {}) {
    this.model = model;
    this.maxQueued = maxQueued;
    this.queued = 0;
    this.turn = Promise.resolve();
    this.cache = new TokenCache((text) => model.tokens(text));
  }

  /**
   * `reply`, the body `{model, answers, usage}` for a parsed request body, and the number of `pairs` scored.
   * Throws RequestError for a request it cannot answer (before waiting), BusyError when too many wait already.
   */
  async answer(body) {
    const request = readRequest(body);
    if (this.queued >= this.maxQueued) throw new BusyError(`${this.queued} requests are already waiting for the model`);
    this.queued++;
    const mine = this.turn.then(() => this.score(request));
    // The next request waits for this one to settle, not to succeed.
    this.turn = mine.catch(() => undefined);
    try {
      return await mine;
    } finally {
      this.queued--;
    }
  }

  async score({ questions, state }) {
    // Instructions first and the state after: when a pair is too long, its tail is cut, and that should be
    // the end of a long state rather than the question.
    // The state may be ~1 MB: tokens() reads only as much of its start as the model can take.
    const stateTokens = this.model.tokens(state);
    const pairs = [];
    for (const question of questions) {
      const query = [...this.cache.tokens(question.instructions), ...stateTokens];
      for (const candidate of question.candidates) pairs.push({ query, candidate: this.cache.tokens(candidate.text) });
    }
    const { logits, tokens } = await this.model.score(pairs);
    let next = 0;
    const answers = questions.map((question) => {
      const own = logits.slice(next, next + question.candidates.length);
      next += question.candidates.length;
      return [question.id, answerOf(question, own)];
    });
    return {
      reply: {
        model: this.model.name,
        answers: Object.fromEntries(answers),
        usage: { input_tokens: tokens, output_tokens: 0 },
      },
      pairs: pairs.length,
    };
  }
}

module.exports = { Reranker, BusyError };
