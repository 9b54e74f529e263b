/**
 * How the installer quotes a path in the commands it prints: as one word that the shell it is for expands
 * nothing in. The sh quoting is checked by sh itself; PowerShell's (there is no PowerShell here) by its rules.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const { quoteFor } = require('../../../scripts/install/shell-options') as {
  quoteFor(shell: 'sh' | 'powershell', value: string): string;
};

const NASTY = [
  '/home/u $(touch PWNED)/app',
  '/home/u `touch PWNED`/app',
  "/home/it's/app",
  "''",
  "'",
  '/home/"$HOME" ${HOME} \\ ! * ? ~ ; & | < > #/app',
  'two\nlines; touch PWNED',
  '-n',
  '',
];

describe('for sh', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'system1-quote-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it.each(NASTY)('sh reads %j back as one word and runs nothing in it', (value) => {
    const argv = execFileSync('sh', ['-c', `printf '[%s]' ${quoteFor('sh', value)}`], {
      cwd: scratch,
      encoding: 'utf8',
    });
    expect(argv).toBe(`[${value}]`);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('leaves a plain path as it is, inside the quotes', () => {
    expect(quoteFor('sh', '/home/dev/.system1-gateway/app/dist/main.js')).toBe(
      "'/home/dev/.system1-gateway/app/dist/main.js'",
    );
  });
});

describe('for PowerShell', () => {
  it('puts the path in single quotes, where $(...) and backquotes are literal, and doubles a quote in it', () => {
    expect(quoteFor('powershell', 'C:\\Users\\u $(calc)`n\\app')).toBe("'C:\\Users\\u $(calc)`n\\app'");
    expect(quoteFor('powershell', "C:\\Users\\o'brien\\app")).toBe("'C:\\Users\\o''brien\\app'");
  });

  it('doubles the typographic single quotes too, which PowerShell also ends a string at', () => {
    expect(quoteFor('powershell', 'C:\\Users\\o\u2019brien \u2018x\u2019 \u201Ay\u201B')).toBe(
      "'C:\\Users\\o\u2019\u2019brien \u2018\u2018x\u2019\u2019 \u201A\u201Ay\u201B\u201B'",
    );
  });
});
