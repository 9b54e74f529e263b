'use strict';
/**
 * The spec's limits for this server (gateway-docs, "A Hugging Face-only engine"): one place, read by the
 * request checks, the HTTP guards and /health.
 */
module.exports = Object.freeze({
  /** Bodies over this are refused with 413 before they are parsed. */
  maxBodyBytes: 1024 * 1024,
  maxQuestions: 16,
  /**
   * Candidates in one request, summed over its questions (a yes/no question counts 2, a score question its
   * levels): every candidate is one (query, candidate) pair the model reads for the request, so this bounds
   * the work of a request, not only of a question.
   */
  maxOptions: 256,
  minLevels: 2,
  maxLevels: 10,
  /** Requests in hand at once (one runs on the model, the others wait their turn); more get 429. */
  maxQueued: 8,
});
