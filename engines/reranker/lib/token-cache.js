'use strict';
/**
 * The tokens of texts seen lately. The candidates of a decision (an agent's tool descriptions, a router's
 * tiers) and its instructions come back request after request, and tokenising them in JavaScript costs more
 * than a small model's run; the state, new every time, is not kept.
 */
const MAX_ENTRIES = 4096;
/** Longer texts are tokenised each time: keeping them would let a few requests fill the memory. */
const MAX_TEXT_CHARS = 2000;

class TokenCache {
  constructor(tokenize, { maxEntries = MAX_ENTRIES } = {}) {
    this.tokenize = tokenize;
    this.maxEntries = maxEntries;
    this.entries = new Map();
  }

  /** The tokens of `text` (shared: never to be changed by the caller). */
  tokens(text) {
    if (text.length > MAX_TEXT_CHARS) return this.tokenize(text);
    const known = this.entries.get(text);
    if (known) {
      // Map keeps insertion order: moving a hit to the end makes the first entry the least recently used.
      this.entries.delete(text);
      this.entries.set(text, known);
      return known;
    }
    const tokens = this.tokenize(text);
    this.entries.set(text, tokens);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value);
    return tokens;
  }
}

module.exports = { TokenCache };
