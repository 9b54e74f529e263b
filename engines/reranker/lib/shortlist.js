'use strict';
/**
 * The optional first stage for choices over many candidates (`--shortlist K`, off by default): every option
 * is scored cheaply against the query with BM25, and only the top K are paired with it for the cross-encoder,
 * whose cost grows with every pair (an agent's 90 tools are 90 pairs).
 *
 * BM25 over words (letters and digits, lower-cased, camelCase split), not over the model's tokens: a
 * byte-level BPE spells a word differently after a space, a quote or at a text's start, and keeps case, so
 * the same word would often not match itself. An option's document is its key and its description: a tool's
 * name ("refund_order") says much of what it does. The statistics (document frequency, average length) are
 * the request's own options': the words that every option shares ("returns", "the") weigh next to nothing,
 * whatever the options are. Each option's word counts are cached by text (in the same least-recently-used
 * cache the tokens are kept in), since an agent's tools come back every decision.
 */
const { TokenCache } = require('./token-cache');

/** BM25's usual constants (Robertson's k1 and b, as Lucene and Elasticsearch default to them). */
const K1 = 1.2;
const B = 0.75;
/**
 * Of the state, the words of its first this many characters per model token count: at least the text the
 * model reads (about 4 characters a token in English), while a 1 MB state is not split into words whole.
 */
const STATE_CHARS_PER_TOKEN = 8;

/** The words of a text: runs of letters and digits, camelCase split, lower-cased. */
function words(text) {
  return (
    text
      .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** A document's word counts and length. */
function termCounts(text) {
  const counts = new Map();
  const all = words(text);
  for (const word of all) counts.set(word, (counts.get(word) ?? 0) + 1);
  return { counts, length: all.length };
}

/** What BM25 reads of an option: its key, and its description when it has one of its own. */
function documentOf({ key, text }) {
  return text === key ? key : `${key}\n${text}`;
}

/** BM25 scores of documents (term counts) for a set of query words, with the documents' own statistics. */
function bm25(queryWords, documents) {
  const n = documents.length;
  const averageLength = documents.reduce((sum, doc) => sum + doc.length, 0) / n || 1;
  const scores = new Array(n).fill(0);
  for (const word of queryWords) {
    const containing = documents.filter((doc) => doc.counts.has(word)).length;
    if (containing === 0) continue;
    // Lucene's idf: never negative, so a word most options share still counts a little, never against.
    const idf = Math.log(1 + (n - containing + 0.5) / (containing + 0.5));
    documents.forEach((doc, i) => {
      const tf = doc.counts.get(word) ?? 0;
      if (tf > 0) scores[i] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / averageLength));
    });
  }
  return scores;
}

class Shortlist {
  /**
   * @param {number} topK how many options of a choice the cross-encoder is asked about
   * @param {number} maxLength the model's tokens a pair: how much of the state is read
   */
  constructor(topK, maxLength) {
    this.topK = topK;
    this.stateChars = STATE_CHARS_PER_TOKEN * maxLength;
    this.documents = new TokenCache(termCounts);
  }

  /**
   * The indices of the options the cross-encoder is to see, in the order sent: the K with the highest BM25
   * score against the question's instructions and the state (ties to the earlier option). Undefined, for all
   * of them, unless the question is a choice with more than K options: a yes/no or score question's few
   * candidates are the answer's whole scale, and must all be scored.
   */
  pick(question, state) {
    if (question.type !== 'choice' || question.candidates.length <= this.topK) return undefined;
    const query = new Set(words(`${question.instructions}\n${state.slice(0, this.stateChars)}`));
    const scores = bm25(
      query,
      question.candidates.map((candidate) => this.documents.tokens(documentOf(candidate))),
    );
    return scores
      .map((score, index) => ({ score, index }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, this.topK)
      .map(({ index }) => index)
      .sort((a, b) => a - b);
  }
}

module.exports = { Shortlist, bm25, termCounts, words };
