/**
 * `npm run bench -- --check` (bench/report.js): bench/RESULTS.md must be a current render of its template and
 * of results files taken at HEAD's src/, with every figure quoted from a results file. Each test plants one
 * problem in an otherwise current setup (a throw-away git repository) and expects the check to name it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
interface Paths {
  root: string;
  template: string;
  results: string;
  output: string;
}

const { check, renderReport } = require(path.join(ROOT, 'bench', 'report.js')) as {
  check: (options: Paths) => string[];
  renderReport: (options: Omit<Paths, 'output'>) => { text: string; problems: string[] };
};

const TEMPLATE = [
  '# Results',
  '',
  'Start-up took {{startup.json#stats.gateway.p50|0}} ms p50, {{startup.json#ratio|2}}x the floor.',
  '',
].join('\n');

let paths: Paths;
let commit: string;

function git(...args: string[]): string {
  return execFileSync(
    'git',
    ['-c', 'user.name=bench test', '-c', 'user.email=bench@example.invalid', '-c', 'commit.gpgsign=false', ...args],
    { cwd: paths.root, encoding: 'utf8' },
  ).trim();
}

function commitFile(file: string, text: string): string {
  mkdirSync(path.dirname(path.join(paths.root, file)), { recursive: true });
  writeFileSync(path.join(paths.root, file), text);
  git('add', file);
  git('commit', '-q', '-m', `change ${file}`);
  return git('rev-parse', 'HEAD');
}

/** A results file as bench/lib.js `save` writes it, taken at `at` with src/ clean unless told. */
function writeResults(at: string, provenance: Record<string, unknown> = {}): void {
  const machine = {
    hostname: 'h',
    cpus: 2,
    cpu: 'cpu',
    memory_gb: 4,
    node: 'v20',
    load_average_start: [0.1, 0.1, 0.1],
  };
  const file = {
    provenance: {
      commit: at,
      src_dirty: false,
      dirty_files: [],
      date: '2026-12-01T10:00:00.000Z',
      invoked_as: 'npm run bench -- startup',
      quick: false,
      machine,
      ...provenance,
    },
    stats: { gateway: { p50: 184.87 } },
    ratio: 1.194,
  };
  writeFileSync(path.join(paths.results, 'startup.json'), JSON.stringify(file));
}

function setTemplate(text: string): void {
  writeFileSync(paths.template, text);
  writeFileSync(paths.output, renderReport(paths).text);
}

beforeEach(() => {
  const root = mkdtempSync(path.join(tmpdir(), 'bench-check-'));
  paths = {
    root,
    template: path.join(root, 'bench', 'RESULTS.template.md'),
    results: path.join(root, 'bench', 'results'),
    output: path.join(root, 'bench', 'RESULTS.md'),
  };
  mkdirSync(paths.results, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: root });
  commitFile('package-lock.json', '{}\n');
  commit = commitFile('src/main.ts', 'export const answer = 1;\n');
  writeResults(commit);
  setTemplate(TEMPLATE);
});

afterEach(() => rmSync(paths.root, { recursive: true, force: true }));

it('passes a current render of results taken at HEAD with src/ committed, and renders the figures from them', () => {
  expect(check(paths)).toEqual([]);
  expect(readFileSync(paths.output, 'utf8')).toContain('Start-up took 185 ms p50, 1.19x the floor.');
});

it('names a figure written into the template outside a placeholder, with its line', () => {
  setTemplate(`${TEMPLATE}The gateway is 2.4x faster than before, and idle RSS is 77 MB.\n`);

  const problems = check(paths);

  expect(problems).toEqual([
    expect.stringMatching(/RESULTS\.template\.md:4: "2\.4x" is a figure written into the text/),
    expect.stringMatching(/RESULTS\.template\.md:4: "77 MB" is a figure written into the text/),
  ]);
});

it('lets a number that is not a measurement through when it is marked literal, and ignores code and headings', () => {
  setTemplate(
    `${TEMPLATE}Target {{literal 1.5x}}.\n\n## Before 1.2 ms\n\n\`\`\`\nnode -e '' # 2.5 ms\n\`\`\`\n\`--heap-growing-percent=20\` keeps 1 in \`0.5 s\`.\n`,
  );

  expect(check(paths)).toEqual([]);
});

it('names a placeholder whose path the results file lacks, and one whose file does not exist', () => {
  setTemplate(`${TEMPLATE}p99 {{startup.json#stats.gateway.p99|0}} ms; memory {{memory.json#rss_mb.idle|1}} MB.\n`);

  const problems = check(paths);

  expect(problems).toEqual([
    expect.stringMatching(
      /RESULTS\.template\.md:4: \{\{startup\.json#stats\.gateway\.p99\|0\}\}: startup\.json has no stats\.gateway\.p99/,
    ),
    expect.stringMatching(
      /RESULTS\.template\.md:4: \{\{memory\.json#rss_mb\.idle\|1\}\}: bench[\\/]results[\\/]memory\.json does not exist/,
    ),
  ]);
  expect(readFileSync(paths.output, 'utf8')).toContain('p99 [missing: startup.json#stats.gateway.p99] ms');
});

it('names results taken at a commit older than the last change to src/', () => {
  commitFile('src/main.ts', 'export const answer = 2;\n');

  const problems = check(paths);

  expect(problems).toEqual([
    expect.stringMatching(
      new RegExp(
        `startup\\.json was taken at ${commit.slice(0, 7)}; src or package-lock\\.json changed since \\(1 commit`,
      ),
    ),
  ]);
});

it('names results taken before a change to package-lock.json, but not before a change outside src/', () => {
  commitFile('README.md', 'docs only\n');
  expect(check(paths)).toEqual([]);

  commitFile('package-lock.json', '{"lockfileVersion": 3}\n');
  expect(check(paths)).toEqual([expect.stringMatching(/startup\.json was taken at .*changed since/)]);
});

it('names results taken with uncommitted changes in src/, at reduced sizes, or naming no commit', () => {
  writeResults(commit, { src_dirty: true, dirty_files: ['src/main.ts'], quick: true });
  writeFileSync(paths.output, renderReport(paths).text);

  expect(check(paths)).toEqual([
    expect.stringMatching(/startup\.json was taken with BENCH_QUICK=1/),
    expect.stringMatching(
      /startup\.json was taken with uncommitted changes in src or package-lock\.json \(src\/main\.ts\)/,
    ),
  ]);

  writeResults(commit, { commit: undefined });
  writeFileSync(paths.output, renderReport(paths).text);
  expect(check(paths)).toEqual([expect.stringMatching(/startup\.json names no commit/)]);
});

it('names a RESULTS.md edited by hand or rendered from other results, with the first differing line', () => {
  writeFileSync(paths.output, readFileSync(paths.output, 'utf8').replace('185 ms', '150 ms'));

  expect(check(paths)).toEqual([
    expect.stringMatching(
      /RESULTS\.md is not what bench[\\/]RESULTS\.template\.md renders to .*line \d+: "Start-up took 150 ms.*where the render has "Start-up took 185 ms/,
    ),
  ]);
});
