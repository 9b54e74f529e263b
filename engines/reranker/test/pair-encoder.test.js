'use strict';
// A long text is tokenised piece by piece from its start: the pieces must give the tokens the whole text gives.
const test = require('node:test');
const assert = require('node:assert/strict');
const { CrossEncoder } = require('../lib/cross-encoder');
const { tinyModelDir } = require('../test-support/server');

test('the first max-length tokens of a long text are those of the whole text, cut wherever its pieces end', async () => {
  const model = await CrossEncoder.load(tinyModelDir({ maxLength: 2048 }), { device: 'cpu' });
  try {
    const { encoder } = model;
    const whole = (text) => encoder.tokenizer.tokenize(text, { add_special_tokens: false }).slice(0, encoder.maxLength);
    const pieces = [];
    const tokenize = encoder.tokenizer.tokenize;
    encoder.tokenizer.tokenize = (text, options) => (
      pieces.push(text.length),
      tokenize.call(encoder.tokenizer, text, options)
    );
    // From dense text (one piece holds enough tokens) to text with long runs of whitespace (several pieces).
    const texts = [
      'i was charged twice for the ticket. '.repeat(3000),
      'charged   twice  '.repeat(6000),
      'refunds \n\t billing\n\n'.repeat(5000),
      'pick 😀 the, "ticket": {urgent}    '.repeat(3000),
      `${'refunds billing '.repeat(100)}${'x'.repeat(5000)} charged twice ${'shipping, '.repeat(3000)}`,
    ];
    let severalPieces = 0;
    for (const text of texts) {
      pieces.length = 0;
      const got = encoder.tokens(text);
      const read = [...pieces];
      assert.deepEqual(got, whole(text), text.slice(0, 40));
      assert.equal(got.length, encoder.maxLength);
      // Never more than max length × the longest vocabulary entry (2048 × 9 characters), whatever the text's length.
      assert.ok(
        read.reduce((a, b) => a + b, 0) <= 2048 * 9,
        `${text.slice(0, 40)}: read ${read.join(' + ')} of ${text.length} characters`,
      );
      if (read.length > 1) severalPieces++;
    }
    // The comparison above covered cuts between pieces, not only one piece.
    assert.ok(severalPieces >= 2, `only ${severalPieces} texts were read in several pieces`);

    // Mostly whitespace: past that bound nothing is read; what was
    // read is a start of the whole text's tokens, never other tokens (no word cut in two at the bound).
    const sparse = 'shipping,                    '.repeat(2000);
    const got = encoder.tokens(sparse);
    assert.ok(got.length < encoder.maxLength);
    assert.deepEqual(got, whole(sparse).slice(0, got.length));
  } finally {
    await model.release();
  }
});
