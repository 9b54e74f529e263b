/**
 * The Inspector the docs run is the one this repository tests with: on Node 20 a bare
 * `npx @modelcontextprotocol/inspector` resolves to 0.15.0, whose CLI drops `--header`, so the documented call
 * with a token got 401. Every mention in the README and docs/ that runs it names the pinned version.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const pinned = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@modelcontextprotocol/inspector'];
const docs = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((name) => path.join('docs', name))];

it('the repository pins one exact Inspector version', () => {
  expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
});

it('every npx command for the Inspector in the docs names that version', () => {
  const commands = docs.flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/npx @modelcontextprotocol\/inspector\S*/g)].map(
      (match) => `${file}: ${match[0]}`,
    ),
  );
  expect(commands.length).toBeGreaterThan(0);
  for (const command of commands) expect(command).toMatch(new RegExp(`inspector@${pinned.replace(/\./g, '\\.')}$`));
});
