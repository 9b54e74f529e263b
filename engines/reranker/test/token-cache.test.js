'use strict';
// Texts seen lately are tokenised once; the cache stays bounded, keeps what is used, and skips long texts.
const test = require('node:test');
const assert = require('node:assert/strict');
const { TokenCache } = require('../lib/token-cache');

function counting() {
  const calls = [];
  return { calls, tokenize: (text) => (calls.push(text), text.split(' ')) };
}

test('a text asked again is not tokenised again, and gives the same tokens', () => {
  const { calls, tokenize } = counting();
  const cache = new TokenCache(tokenize);
  assert.deepEqual(cache.tokens('pay the refund'), ['pay', 'the', 'refund']);
  assert.deepEqual(cache.tokens('pay the refund'), ['pay', 'the', 'refund']);
  assert.deepEqual(calls, ['pay the refund']);
});

test('past its size the least recently used text goes first', () => {
  const { calls, tokenize } = counting();
  const cache = new TokenCache(tokenize, { maxEntries: 2 });
  cache.tokens('a');
  cache.tokens('b');
  cache.tokens('a'); // a is now the most recent
  cache.tokens('c'); // b goes
  assert.equal(cache.entries.size, 2);
  cache.tokens('a');
  cache.tokens('b');
  assert.deepEqual(calls, ['a', 'b', 'c', 'b']);
});

test('a long text (a state) is tokenised every time and not kept', () => {
  const { calls, tokenize } = counting();
  const cache = new TokenCache(tokenize);
  const long = 'word '.repeat(1000);
  cache.tokens(long);
  cache.tokens(long);
  assert.equal(calls.length, 2);
  assert.equal(cache.entries.size, 0);
});
