'use strict';
/**
 * Tokenises (query, candidate) pairs as the model's own tokenizer.json says (Hugging Face's tokenizers.js:
 * its normaliser, pre-tokeniser, WordPiece/BPE/Unigram model and pair template, from the local file), cuts
 * each pair to the model's length and pads a run of pairs into the model's input tensors.
 */
const { Tokenizer } = require('@huggingface/tokenizers');

/** The text of a token setting in tokenizer_config.json: a string, or an AddedToken object's content. */
function tokenName(setting) {
  if (typeof setting === 'string') return setting;
  return setting && typeof setting.content === 'string' ? setting.content : undefined;
}

/**
 * Longest-first truncation, as sentence-transformers' CrossEncoder asks of the tokenizer: the longer side
 * loses its tail until the pair fits, so a long state cannot crowd out a short candidate (nor the reverse).
 */
function truncatedLengths(queryLength, candidateLength, budget) {
  if (queryLength + candidateLength <= budget) return [queryLength, candidateLength];
  const half = Math.floor(budget / 2);
  if (queryLength <= half) return [queryLength, budget - queryLength];
  if (candidateLength <= budget - half) return [budget - candidateLength, candidateLength];
  return [budget - half, half];
}

const WHITESPACE = /\s/;

/**
 * Where a piece of text that may end at `limit` ends: before the last whitespace character that precedes a
 * word in its second half, so the cut splits no word nor any run of whitespace a tokenizer reads as one token
 * (a byte-level BPE's 'ĠĠ' before 'Ġword'), and the pieces tokenise as the whole text does. Past the text's
 * end or with no such place, at `limit` (never between the halves of a surrogate pair).
 */
function pieceEnd(text, start, limit) {
  if (limit >= text.length) return text.length;
  for (let i = limit - 1; i > start + (limit - start) / 2; i--) {
    if (WHITESPACE.test(text[i]) && !WHITESPACE.test(text[i + 1])) return i;
  }
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff && limit - 1 > start ? limit - 1 : limit;
}

class PairEncoder {
  /**
   * @param {object} files `tokenizer` (tokenizer.json), `tokenizerConfig`, `config` as read from the folder
   * @param {number} maxLength the most tokens one pair may have, special tokens included
   */
  constructor({ tokenizer, tokenizerConfig, config }, maxLength) {
    this.tokenizer = new Tokenizer(tokenizer, tokenizerConfig);
    this.vocab = this.tokenizer.get_vocab(true);
    const special = new Set((tokenizer.added_tokens ?? []).map((token) => token.content));
    const words = [...this.vocab.keys()].filter((token) => !special.has(token));
    // tokenizers.js loads an empty vocabulary without a word: every text would then read as unknown or padding
    // tokens, and every answer would be near even.
    if (words.length === 0)
      throw new Error(
        'its vocabulary is empty (no entry besides the special tokens), so every text would read as unknown or padding',
      );
    const padName = tokenName(tokenizerConfig.pad_token) ?? tokenizer.padding?.pad_token;
    this.padId =
      (padName !== undefined ? this.vocab.get(padName) : undefined) ??
      tokenizer.padding?.pad_id ??
      config.pad_token_id ??
      0;
    this.unkId = this.vocab.get(tokenName(tokenizerConfig.unk_token) ?? tokenizer.model?.unk_token) ?? this.padId;
    this.maxLength = maxLength;
    this.budget = maxLength - this.withSpecialTokens([], []).tokens.length;
    if (this.budget < 2)
      throw new Error(`a maximum length of ${maxLength} tokens leaves no room for a query and a candidate`);
    // No token stands for more characters than its vocabulary entry has (a WordPiece '##' or a byte-level
    // 'Ġ' only lengthens the entry), so the first maxLength tokens of a text lie within this many characters.
    this.headChars = maxLength * words.reduce((longest, token) => Math.max(longest, token.length), 1);
    // Text is about 4 characters a token: a piece this long mostly holds all the tokens a side can use.
    this.pieceChars = Math.max(4096, 6 * maxLength);
  }

  /**
   * The first tokens of a text, without special tokens ('' has none): at most maxLength, as no pair reads
   * more of one side. The text is tokenised piece by piece from its start until there are enough, and never
   * past its first `headChars` characters, so a 1 MB state costs about what a state the model's length does.
   * A text the tokenizer mostly drops (long runs of spaces) may stop at `headChars` with fewer: a start of the
   * whole text's tokens, never other tokens.
   */
  tokens(text) {
    if (text === '') return [];
    const end = pieceEnd(text, 0, this.headChars);
    const tokens = [];
    for (let at = 0; at < end && tokens.length < this.maxLength;) {
      const cut = at + this.pieceChars >= end ? end : pieceEnd(text, at, at + this.pieceChars);
      for (const token of this.tokenizer.tokenize(text.slice(at, cut), { add_special_tokens: false }))
        tokens.push(token);
      at = cut;
    }
    return tokens.slice(0, this.maxLength);
  }

  /** The pair template of tokenizer.json (`[CLS] A [SEP] B [SEP]` for BERT) over two token lists. */
  withSpecialTokens(query, candidate) {
    const processor = this.tokenizer.post_processor;
    if (!processor)
      return { tokens: [...query, ...candidate], typeIds: [...query.map(() => 0), ...candidate.map(() => 1)] };
    const out = processor(query, candidate, true);
    // A ByteLevel processor alone hands the two sides back unjoined.
    const tokens = out.tokens_pair ? [...out.tokens, ...out.tokens_pair] : out.tokens;
    return { tokens, typeIds: out.token_type_ids ?? tokens.map(() => 0) };
  }

  /**
   * The rows the model reads for pairs of token lists (`{query, candidate}`): each pair cut to the model's
   * length (longest first) and put in the pair template, as `{ids, typeIds}`, unpadded.
   */
  rows(pairs) {
    return pairs.map(({ query, candidate }) => {
      const [q, c] = truncatedLengths(query.length, candidate.length, this.budget);
      const { tokens, typeIds } = this.withSpecialTokens(query.slice(0, q), candidate.slice(0, c));
      return { ids: tokens.map((token) => this.vocab.get(token) ?? this.unkId), typeIds };
    });
  }

  /**
   * The model inputs for rows made by rows(), padded to the longest of them: `input_ids`, `attention_mask`
   * and `token_type_ids` as flat Int32Arrays, row by row, with their `dims`.
   */
  padded(rows) {
    const length = Math.max(1, ...rows.map((row) => row.ids.length));
    const size = rows.length * length;
    const inputs = {
      input_ids: new Int32Array(size).fill(this.padId),
      attention_mask: new Int32Array(size),
      token_type_ids: new Int32Array(size),
    };
    rows.forEach(({ ids, typeIds }, row) => {
      const start = row * length;
      inputs.input_ids.set(ids, start);
      inputs.attention_mask.fill(1, start, start + ids.length);
      inputs.token_type_ids.set(typeIds, start);
    });
    return { inputs, dims: [rows.length, length] };
  }
}

module.exports = { PairEncoder };
