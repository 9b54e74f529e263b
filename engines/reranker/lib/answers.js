'use strict';
/**
 * Turns a question's candidate logits into its System One answer (wire-contracts §1.2), in llama-server's
 * key order: choice `type, choice, probabilities, confidence`; score `type, score, legend, probabilities,
 * confidence`; noul `type, noul`.
 */

/**
 * Softmax over the question's candidates, not a sigmoid per pair: the contract wants ONE distribution over
 * the candidates, summing to 1, and the logits' differences are what a listwise-trained reranker (the naga
 * tool picker learnt a softmax over its 90 tools) puts its preference in. Per-pair sigmoids are separate
 * yes/no relevance guesses: they need not sum to 1, and renormalising them squashes every candidate near 1
 * (or near 0) into a flat distribution. Computed in float64 after subtracting the largest logit, so no
 * logit overflows.
 */
function softmax(logits) {
  const top = Math.max(...logits);
  const exps = logits.map((logit) => Math.exp(logit - top));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/** Jev's choice confidence, as llama-server publishes it: (n·p_max − 1)/(n − 1), floored at 0. */
function choiceConfidence(probabilities) {
  const n = probabilities.length;
  if (n < 2) return 1;
  return Math.max(0, (n * Math.max(...probabilities) - 1) / (n - 1));
}

/** llama-server's score confidence: 1 − E|i − mode| / E_uniform|i − mode|, floored at 0. */
function scoreConfidence(probabilities) {
  const mode = probabilities.indexOf(Math.max(...probabilities));
  const spread = probabilities.reduce((sum, p, i) => sum + p * Math.abs(i - mode), 0);
  const uniform = probabilities.reduce((sum, _p, i) => sum + Math.abs(i - mode), 0) / probabilities.length;
  return uniform === 0 ? 1 : Math.max(0, 1 - spread / uniform);
}

/** The first candidate with the highest probability (ties go to the earlier option, as sent). */
function argmax(values) {
  return values.indexOf(Math.max(...values));
}

/** The answer to one question read by `readRequest`, from its candidates' logits (same order). */
function answerOf(question, logits) {
  const probabilities = softmax(logits);
  const byKey = Object.fromEntries(question.candidates.map(({ key }, i) => [key, probabilities[i]]));
  switch (question.type) {
    case 'choice':
      return {
        type: 'choice',
        choice: question.candidates[argmax(probabilities)].key,
        probabilities: byKey,
        confidence: choiceConfidence(probabilities),
      };
    case 'noul':
      return { type: 'noul', noul: byKey.true };
    case 'score':
      return {
        type: 'score',
        score: probabilities.reduce((sum, p, i) => sum + i * p, 0),
        legend: Object.fromEntries(question.candidates.map(({ key, text }) => [key, text])),
        probabilities: byKey,
        confidence: scoreConfidence(probabilities),
      };
    default:
      throw new Error(`no answer shape for type ${question.type}`);
  }
}

/**
 * The answer to a choice whose model saw only the options at `seen` (indices in the order sent; the
 * shortlist, lib/shortlist.js), from their logits (same order). Every option is in `probabilities`, as the
 * contract asks, in the order sent: the seen ones with their softmax over the seen, the others with 0, the
 * probability the model gave them, having never read them (the sum stays 1). The confidence is over the K
 * seen: Jev's (n·p_max − 1)/(n − 1) grows with n for the same p_max, so counting the unseen options would
 * claim the model had weighed them too.
 */
function shortlistAnswerOf(question, seen, logits) {
  const probabilities = softmax(logits);
  const byIndex = new Array(question.candidates.length).fill(0);
  seen.forEach((index, i) => (byIndex[index] = probabilities[i]));
  return {
    type: 'choice',
    choice: question.candidates[seen[argmax(probabilities)]].key,
    probabilities: Object.fromEntries(question.candidates.map(({ key }, i) => [key, byIndex[i]])),
    confidence: choiceConfidence(probabilities),
  };
}

module.exports = { answerOf, shortlistAnswerOf };
