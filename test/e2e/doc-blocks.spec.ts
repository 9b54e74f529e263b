/**
 * Every code block of README.md and docs/*.md that is meant to run runs as written: a shell block with bash, a
 * JavaScript block with node (`require('system1-gateway')` finding this build), each in a throwaway HOME with
 * `system1` on PATH and the mock as the engine (named, as a reader trying it would). A block that is not meant
 * to run (a fragment, a server that runs until stopped, one needing Claude Code, a key or the network) carries
 * `<!-- not run: why -->` on the line before it, as CONTRIBUTING.md says; this suite holds the reason to words.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MAIN, requireBuild, Resources, ROOT, runCommand } from './helpers/gateway';

jest.setTimeout(120_000);
const resources = Resources.perTest();

/** The languages a reader runs; json, toml, powershell (no PowerShell here) and output blocks are not code to run. */
const RUNNERS: Record<string, 'bash' | 'node'> = { sh: 'bash', bash: 'bash', js: 'node' };
const NOT_CHECKED_HERE = new Set(['ts', 'python']);
const NOT_RUN = /^\s*<!-- not run: (.+) -->\s*$/;

interface Block {
  where: string;
  language: string;
  code: string;
  notRun?: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\w+)\s*$/.exec(lines[i]);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
    const before =
      lines
        .slice(0, i)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    blocks.push({
      where: `${file}:${i + 1}`,
      language: open[1],
      code: lines.slice(i + 1, end).join('\n'),
      notRun: NOT_RUN.exec(before)?.[1],
    });
    i = end;
  }
  return blocks;
}

const FILES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const ALL = FILES.flatMap(blocksOf);
const RUNNABLE = ALL.filter((block) => RUNNERS[block.language] && !block.notRun);

beforeAll(requireBuild);

it('finds the blocks, and every block of code not meant to run says why', () => {
  expect(RUNNABLE.map((block) => block.where)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^docs\/library\.md:/), expect.stringMatching(/^README\.md:/)]),
  );
  for (const block of ALL.filter((candidate) => NOT_CHECKED_HERE.has(candidate.language)))
    expect([block.where, block.notRun]).toEqual([block.where, expect.stringMatching(/\w+ \w+/)]);
});

it.each(RUNNABLE.map((block) => [block.where, block] as const))('%s runs as written', async (_where, block) => {
  const sandbox = resources.sandbox();
  // the `system1` command the installer puts on PATH, running this build
  const bin = path.join(sandbox.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'system1'), `#!/bin/sh\nexec node '${MAIN}' "$@"\n`, { mode: 0o755 });
  // what `npm install system1-gateway` gives a project
  mkdirSync(path.join(sandbox.dir, 'node_modules'));
  symlinkSync(ROOT, path.join(sandbox.dir, 'node_modules', 'system1-gateway'));
  const env = sandbox.env({
    PATH: [bin, path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter),
    SYSTEM1_PROVIDER: 'mock',
  });
  let ran;
  if (RUNNERS[block.language] === 'node') {
    const file = path.join(sandbox.dir, 'block.js');
    writeFileSync(file, block.code);
    ran = await runCommand(process.execPath, [file], { env, cwd: sandbox.dir });
  } else {
    ran = await runCommand('bash', ['-eo', 'pipefail', '-c', block.code], { env, cwd: sandbox.dir });
  }
  expect({ code: ran.code, stderr: ran.code === 0 ? '' : ran.stderr }).toEqual({ code: 0, stderr: '' });
  // a block that runs and prints nothing shows the reader nothing: each of these prints its result
  expect(ran.stdout.trim()).not.toBe('');
});
