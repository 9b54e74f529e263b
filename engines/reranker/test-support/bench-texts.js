'use strict';
/**
 * The texts bench.js decides over: lib/decision-texts.js's request and short tool descriptions (about twenty
 * words: 78 to 79 tokens a pair), long ones (a real tool's description with its arguments: about 302 tokens a
 * pair), and the words in them, so a generated model's vocabulary reads them one token a word, as a real
 * vocabulary does.
 */

const { STATE, INSTRUCTIONS, toolDescription } = require('../lib/decision-texts');

/** What a real tool's description with its arguments runs to: about 224 tokens more than the short one. */
const ARGUMENTS =
  'Arguments: agent_id, the identifier of one agent, or all agents when it is left out; min_balance and ' +
  'max_balance, the range of balances to keep, in the currency of the simulation; since_step and until_step, ' +
  'the steps to read, counted from the start of the run; rule, the name of a billing rule, to keep only the ' +
  'rows that rule changed; order, one of balance, step or agent, ascending unless it starts with a minus sign; ' +
  'fields, the columns to return, all of them unless given. Returns a table with one row for each agent and ' +
  'step, with the balance before and after the step, the rule that changed it and the amount it moved. Fails ' +
  'when the simulation has not run yet, when a step is past the last one that ran, or when the rule is not one ' +
  'the simulation knows. Use it to explain why an agent ran out of money, to check a new rule before the next ' +
  'steps run, or to find the agents a rule hurt most; it changes nothing, so it is safe to call at any time.';

const longToolDescription = (i) => `${toolDescription(i)} ${ARGUMENTS}`;

/** The words and marks of every bench text, digits as WordPiece reads them (a first digit, then ##digits). */
function benchWords() {
  const text = `${INSTRUCTIONS} ${JSON.stringify(STATE)} ${longToolDescription(0)}`.toLowerCase();
  return [
    ...new Set([
      ...text.split(/[^a-z]+/).filter(Boolean),
      ...text.replace(/[a-z0-9\s]/g, ''),
      ...'0123456789'.split(''),
      ...'0123456789'.split('').map((d) => `##${d}`),
    ]),
  ];
}

module.exports = { STATE, INSTRUCTIONS, toolDescription, longToolDescription, benchWords };
