'use strict';
/**
 * Answers a System One request with a cross-encoder: each question's query (its instructions, then the
 * state) is paired with each of its candidates, the request's pairs are scored together (in runs of similar
 * length, lib/length-batches.js), and each question's logits become its answer. Requests take turns on the
 * model; a bounded number wait.
 */
const LIMITS = require('./limits');
const { readRequest } = require('./request');
const { answerOf, shortlistAnswerOf } = require('./answers');
const { TokenCache } = require('./token-cache');
const { Shortlist } = require('./shortlist');

/**
 * A candidate's tokens past this many are dropped before pairing (`--max-candidate-tokens`). The candidate
 * says what it is at its start, and every token costs the same model work on every decision: the first 512
 * tokens (about 380 words) hold a whole tool description (issue 43's long ones were about 250 tokens) and
 * are as much as BERT-style cross-encoders read in all, while a multi-page description would cost many times
 * a typical one for text the ranking hardly needs. See README.md, "What a decision costs".
 */
const DEFAULT_MAX_CANDIDATE_TOKENS = 512;

class BusyError extends Error {}

class Reranker {
  /**
   * @param {import('./cross-encoder').CrossEncoder} model
   * @param {{maxQueued?: number, maxCandidateTokens?: number, shortlist?: number}} options `shortlist`: the
   *   K a choice over more options is cut to before the cross-encoder (lib/shortlist.js); none by default
   */
  constructor(
    model,
    { maxQueued = LIMITS.maxQueued, maxCandidateTokens = DEFAULT_MAX_CANDIDATE_TOKENS, shortlist } = {},
  ) {
    this.model = model;
    this.maxQueued = maxQueued;
    this.maxCandidateTokens = maxCandidateTokens;
    this.shortlist = shortlist === undefined ? undefined : new Shortlist(shortlist, model.maxLength);
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

  /** A candidate's tokens, its first maxCandidateTokens only (the pair's own truncation still follows). */
  candidateTokens(text) {
    const tokens = this.cache.tokens(text);
    return tokens.length > this.maxCandidateTokens ? tokens.slice(0, this.maxCandidateTokens) : tokens;
  }

  async score({ questions, state }) {
    // Instructions first and the state after: when a pair is too long, its tail is cut, and that should be
    // the end of a long state rather than the question.
    // The state may be ~1 MB: tokens() reads only as much of its start as the model can take.
    const stateTokens = this.model.tokens(state);
    const pairs = [];
    // For each question, the indices of the candidates the model is asked about: all, or its shortlist.
    const seen = questions.map((question) => this.shortlist?.pick(question, state));
    questions.forEach((question, q) => {
      const query = [...this.cache.tokens(question.instructions), ...stateTokens];
      const candidates = seen[q] ? seen[q].map((index) => question.candidates[index]) : question.candidates;
      for (const candidate of candidates) pairs.push({ query, candidate: this.candidateTokens(candidate.text) });
    });
    const { logits, tokens } = await this.model.score(pairs);
    let next = 0;
    const answers = questions.map((question, q) => {
      const count = seen[q] ? seen[q].length : question.candidates.length;
      const own = logits.slice(next, next + count);
      next += count;
      return [question.id, seen[q] ? shortlistAnswerOf(question, seen[q], own) : answerOf(question, own)];
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

module.exports = { Reranker, BusyError, DEFAULT_MAX_CANDIDATE_TOKENS };
