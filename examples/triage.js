#!/usr/bin/env node
// Three questions about one support message, in one engine call, through the library API.
//
//   npm run build && node examples/triage.js "I was charged twice and nobody answers!"
//
// The engine is the one in your config (~/.config/system1/config.toml), or set it here, for example
// SYSTEM1_PROVIDER=laya SYSTEM1_LAYA_ENDPOINT=http://127.0.0.1:8765. In your own project the require
// is `require('system1-gateway')`.
const { createSystem1, System1InputError } = require('..');

async function main() {
  const message = process.argv[2] ?? 'I was charged twice for my order last week and nobody has replied.';
  const system1 = await createSystem1();
  try {
    const { answers, meta } = await system1.decide({
      state: { ticket: message },
      questions: {
        refund: { type: 'noul', instructions: 'Is the customer asking for money back?' },
        team: {
          type: 'choice',
          instructions: 'Which team should handle this ticket?',
          criteria: { billing: 'payments, charges and refunds', shipping: 'deliveries and returns', technical: null },
        },
        urgency: {
          type: 'score',
          instructions: 'How urgent is this?',
          criteria: ['can wait', 'this week', 'today', 'right now'],
        },
      },
    });
    for (const [id, result] of Object.entries(answers)) {
      if (result.status === 'error') {
        console.log(`${id}: no answer (${result.error.code}: ${result.error.message})`);
        continue;
      }
      const { answer, belowThreshold } = result;
      const shown =
        answer.type === 'noul'
          ? `${answer.value} (p=${answer.probabilityTrue.toFixed(2)})`
          : answer.type === 'score'
            ? `level ${answer.level} (expected ${answer.value.toFixed(2)})`
            : answer.type === 'choice'
              ? answer.value
              : JSON.stringify(answer.box);
      console.log(
        `${id}: ${shown}, confidence ${answer.confidence?.toFixed(2)}${belowThreshold ? ' (below threshold: decide yourself)' : ''}`,
      );
    }
    const executed = meta.executed ? `${meta.executed.provider} ${meta.executed.model ?? ''}`.trim() : 'no engine';
    console.log(`answered by ${executed} in ${meta.durationMs} ms (request ${meta.requestId})`);
  } catch (error) {
    if (error instanceof System1InputError) console.error(`bad request: ${error.message}`);
    throw error;
  } finally {
    await system1.close();
  }
}

main().catch(() => (process.exitCode = 1));
