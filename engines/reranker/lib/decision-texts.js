'use strict';
/**
 * A naga-like decision: an agent's request of about 25 words and tool descriptions of about 25 words each,
 * asked as one `choice` question. bench.js times it and the engine's self-timing (lib/self-timing.js) times
 * it, so both measure a decision shaped like the one the gateway sends.
 */
const STATE = {
  request:
    'Run the simulation for ten more steps with the new billing rules, then show me which agents ran out of money and why they did.',
};
const INSTRUCTIONS = 'Which tool should the agent call next to make progress on this request?';
const toolDescription = (i, extra = '') =>
  `tool ${i}: reads the current simulation state, filters agents by their balance and returns the matching rows with the rule that changed them${extra}.`;

/** The request body (an object) of a decision over `candidates` tools; `extra` is added to every description. */
function decisionRequest(candidates, extra) {
  const criteria = Object.fromEntries(
    Array.from({ length: candidates }, (_, i) => [`tool_${i}`, toolDescription(i, extra && `, ${extra}`)]),
  );
  return { state: STATE, questions: { tool: { type: 'choice', instructions: INSTRUCTIONS, criteria } } };
}

/** The same as JSON text, as it goes over HTTP. */
const decisionBody = (candidates, extra) => JSON.stringify(decisionRequest(candidates, extra));

module.exports = { STATE, INSTRUCTIONS, toolDescription, decisionRequest, decisionBody };
