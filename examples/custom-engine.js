#!/usr/bin/env node
// A team's own engine, registered at run time and used as the fallback of the configured one.
//
//   npm run build && node examples/custom-engine.js
//
// The engine below answers choice questions by counting keyword hits in the state: crude, but it shows
// the whole contract. A real one would call a model over HTTP and pass `signal` to that call.
const { createSystem1, System1ProviderError } = require('..');

/** @implements {import('..').CustomProvider} */
class KeywordEngine {
  /** Which typed questions `evaluate` takes, and its limits. */
  capabilities() {
    return { batch: true, probabilities: true, model: 'keywords-1', questions: { types: ['choice'], max_options: 20 } };
  }

  /**
   * @param {import('..').EvaluateRequest} request
   * @param {import('..').AttemptContext} context
   * @returns {Promise<import('..').EvaluateReply>}
   */
  async evaluate(request, { signal }) {
    if (signal.aborted) throw new System1ProviderError('cancelled', 'keyword engine: cancelled');
    const text = JSON.stringify(request.state).toLowerCase();
    const answers = {};
    for (const [id, question] of Object.entries(request.questions)) {
      const keys = Object.keys(question.criteria);
      // One point per key or description word found, plus one so nothing gets probability 0.
      const scores = keys.map(
        (key) =>
          1 +
          [key, String(question.criteria[key] ?? '')]
            .join(' ')
            .split(/\W+/)
            .filter((w) => w && text.includes(w.toLowerCase())).length,
      );
      const total = scores.reduce((a, b) => a + b, 0);
      const probabilities = Object.fromEntries(keys.map((key, i) => [key, scores[i] / total]));
      const choice = keys[scores.indexOf(Math.max(...scores))];
      // The System One answer shape: the gateway checks it and puts the confidence on its own scale.
      answers[id] = { type: 'choice', choice, probabilities };
    }
    return { answers, model: 'keywords-1' };
  }
}

async function main() {
  const system1 = await createSystem1({
    // The configured engine first, the team's engine when it fails or cannot take the question.
    fallbackModels: [{ provider: 'keywords' }],
  });
  const unregister = system1.registerProvider('keywords', new KeywordEngine());
  try {
    const ask = (model) =>
      system1.decide({
        state: { ticket: 'My parcel never arrived and the tracking page is blank.' },
        questions: {
          team: {
            type: 'choice',
            instructions: 'Which team?',
            criteria: { billing: 'refund charge', shipping: 'parcel delivery tracking' },
          },
        },
        ...(model && { model }),
      });
    const direct = await ask({ provider: 'keywords' });
    console.log(
      `keywords alone: team = ${direct.answers.team.status === 'ok' ? direct.answers.team.answer.value : direct.answers.team.error.code}`,
    );
    const chained = await ask();
    const failed = (chained.meta.attempts ?? []).map((a) => `${a.provider}: ${a.error.code}`).join(', ');
    console.log(
      `chain ${system1
        .chain()
        .map((m) => m.provider)
        .join(' -> ')}: answered by ${chained.meta.executed?.provider ?? 'nobody'}${failed ? ` after ${failed}` : ''}`,
    );
  } finally {
    unregister(); // idempotent; also cancels this engine's calls still in flight
    await system1.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
