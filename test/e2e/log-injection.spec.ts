/**
 * A request id is the caller's text, and the gateway logs it: control characters in it must reach neither
 * the terminal reading stderr nor `log_file` raw (a screen clear, a colour, a rewound line, a forged record).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { requireBuild, Resources } from './helpers/gateway';

const resources = Resources.perTest();
beforeAll(requireBuild);

/** The tester's request id: clears the screen, turns it red, rewinds the line and rings the bell. */
const FORGED = 'x\u001b[2J\u001b[31mFAKE\rZZZZ forged\u0007';
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

it('logs a system1_decide request id with its control characters escaped, one record per line', async () => {
  const sandbox = resources.sandbox();
  const logFile = path.join(sandbox.dir, 'logs', 'gateway.log');
  const gateway = await resources.server({ sandbox, env: { SYSTEM1_PROVIDER: 'mock', SYSTEM1_LOG_FILE: logFile } });
  const { body } = await gateway.decide({
    question: 'Deploy now?',
    request_id: `${FORGED}\n2026-01-01T00:00:00.000Z ERROR [Gateway] forged\u2028`,
  });
  expect(body.status).toBe('decided');
  await gateway.close();
  for (const written of [gateway.stderr(), readFileSync(logFile, 'utf8')]) {
    expect(written).toContain(
      '[x\\u001b[2J\\u001b[31mFAKE\\rZZZZ forged\\u0007\\n2026-01-01T00:00:00.000Z ERROR [Gateway] forged\\u2028] decided',
    );
    for (const record of written.split('\n').filter(Boolean)) {
      expect(record).not.toMatch(CONTROL);
      expect(record).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z [A-Z]+ /);
    }
  }
});
