import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { labelSpawns } from '../../../src/routing/outcomes';
import { readLines, readSpawns } from '../../../src/routing/transcripts';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'transcripts', 'two-spawns.jsonl');
const SESSION = '6f1c2b7e-3d94-4a51-9c0e-8b2f5a7d1e36';

/** Transcript lines in the envelope Claude Code 2.1.332 writes (claude-code-formats.md §2, §6.1). */
const envelope = (type: string, message: unknown, extra: Record<string, unknown> = {}, at = 0) => ({
  parentUuid: null,
  isSidechain: false,
  type,
  message,
  uuid: `u-${Math.random()}`,
  timestamp: new Date(Date.UTC(2026, 10, 30, 9, 14, at)).toISOString(),
  userType: 'external',
  cwd: '/home/dev/work/shop-api',
  sessionId: SESSION,
  version: '2.1.332',
  ...extra,
});
const spawnLine = (id: string, description: string, model: string, at: number, background = false) =>
  envelope(
    'assistant',
    {
      role: 'assistant',
      model: 'claude-opus-5-5',
      id: `msg_${id}`,
      content: [
        {
          type: 'tool_use',
          id,
          name: 'Agent',
          input: {
            description,
            prompt: `${description} in full.`,
            subagent_type: 'general-purpose',
            model,
            run_in_background: background,
          },
        },
      ],
    },
    { requestId: `req_${id}` },
    at,
  );
const resultLine = (id: string, content: string, toolUseResult: unknown, isError = false, at = 0) =>
  envelope(
    'user',
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }],
    },
    { toolUseResult, sourceToolAssistantUUID: 'x' },
    at,
  );
const completed = (text: string) => ({
  status: 'completed',
  agentId: 'a1',
  content: [{ type: 'text', text }],
  resolvedModel: 'claude-sonnet-5',
});
const notificationLine = (toolUseId: string, status: string, summary: string, at: number) =>
  envelope(
    'user',
    {
      role: 'user',
      content: `<task-notification>\n<task-id>b1</task-id>\n<tool-use-id>${toolUseId}</tool-use-id>\n<status>${status}</status>\n<summary>${summary}</summary>\n</task-notification>`,
    },
    { origin: { kind: 'task-notification' } },
    at,
  );

const labelsOf = (lines: unknown[]) =>
  labelSpawns(readSpawns(lines as Record<string, unknown>[])).map((l) => [
    l.toolUseId,
    l.outcome,
    l.signal,
    l.doubtful,
  ]);

describe('outcomes from transcripts', () => {
  it('reads the documented fixture: one spawn succeeded (sonnet, ran claude-sonnet-5), one failed on an error', () => {
    const labelled = labelSpawns(readSpawns(readLines(FIXTURE)));
    expect(labelled.map((l) => [l.toolUseId, l.model, l.resolvedModel, l.outcome, l.signal])).toEqual([
      ['toolu_01Fz8Kd2Lm5Np7Qr3St6Uv9W', 'sonnet', 'claude-sonnet-5', 'succeeded', 'completed'],
      ['toolu_01Gy3Je6Hk8Mn1Pq4Rs7Tu2V', 'haiku', null, 'failed', 'tool-error'],
    ]);
  });

  it.each([
    [
      'a tool result that is an error',
      [
        spawnLine('t1', 'Fix the flaky test', 'haiku', 1),
        resultLine(
          't1',
          '<tool_use_error>Agent terminated early due to an API error</tool_use_error>',
          'Error: x',
          true,
          2,
        ),
      ],
      ['t1', 'failed', 'tool-error', false],
    ],
    [
      'the user declining the spawn (doubtful)',
      [
        spawnLine('t1', 'Fix the flaky test', 'haiku', 1),
        resultLine('t1', "The user doesn't want to proceed with this tool use.", 'User rejected tool use', true, 2),
      ],
      ['t1', 'failed', 'tool-error', true],
    ],
    [
      'a task notification that says failed',
      [
        spawnLine('t1', 'Migrate the schema', 'haiku', 1, true),
        resultLine('t1', 'Async agent launched successfully.', { status: 'async_launched', agentId: 'b1' }, false, 2),
        notificationLine('t1', 'failed', 'Agent "Migrate the schema" failed: tests did not pass', 9),
      ],
      ['t1', 'failed', 'notification-failed', false],
    ],
    [
      'a task notification that says stopped by user (doubtful)',
      [
        spawnLine('t1', 'Migrate the schema', 'haiku', 1, true),
        resultLine('t1', 'Async agent launched successfully.', { status: 'async_launched', agentId: 'b1' }, false, 2),
        notificationLine('t1', 'killed', 'Agent "Migrate the schema" was stopped by user', 9),
      ],
      ['t1', 'failed', 'notification-failed', true],
    ],
    [
      'a report saying it was blocked (doubtful)',
      [
        spawnLine('t1', 'Upgrade the ORM', 'haiku', 1),
        resultLine(
          't1',
          'I was unable to finish: the migration needs a decision on nullable columns.',
          completed('I was unable to finish'),
          false,
          2,
        ),
      ],
      ['t1', 'failed', 'reported-blocked', true],
    ],
    [
      'a background run that finished',
      [
        spawnLine('t1', 'Migrate the schema', 'sonnet', 1, true),
        resultLine('t1', 'Async agent launched successfully.', { status: 'async_launched', agentId: 'b1' }, false, 2),
        notificationLine('t1', 'completed', 'Agent "Migrate the schema" finished', 9),
      ],
      ['t1', 'succeeded', 'completed', false],
    ],
    [
      'a background run with no notification yet',
      [
        spawnLine('t1', 'Migrate the schema', 'sonnet', 1, true),
        resultLine('t1', 'Async agent launched successfully.', { status: 'async_launched', agentId: 'b1' }, false, 2),
      ],
      ['t1', 'unknown', 'no-result', false],
    ],
  ])('labels %s', (_name, lines, expected) => {
    expect(labelsOf(lines)[0]).toEqual(expected);
  });

  it('labels a spawn failed when a later spawn in the session redid the same task', () => {
    const lines = [
      spawnLine('t1', 'Fix the date parser', 'haiku', 1),
      resultLine('t1', 'Done: parser fixed.', completed('Done'), false, 2),
      spawnLine('t2', 'Fix the date parser', 'sonnet', 3),
      resultLine('t2', 'Done: parser fixed, with tests.', completed('Done'), false, 4),
    ];
    expect(labelsOf(lines)).toEqual([
      ['t1', 'failed', 'redone', false],
      ['t2', 'succeeded', 'completed', false],
    ]);
  });

  it('prints totals only and --apply writes labels into the routing log', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 's1-outcomes-'));
    try {
      const projects = path.join(dir, 'projects', '-home-dev-work-shop-api');
      mkdirSync(projects, { recursive: true });
      writeFileSync(
        path.join(projects, `${SESSION}.jsonl`),
        readFileSync(FIXTURE, 'utf8') + 'not json, a line cut off at a crash\n',
      );
      const env = {
        PATH: process.env.PATH!,
        HOME: dir,
        SYSTEM1_INSTALL_DIR: path.join(dir, 'install'),
        SYSTEM1_ROUTING_LOG_FILE: path.join(dir, 'routing.jsonl'),
      };
      const main = path.join(__dirname, '..', '..', '..', 'dist', 'main.js');
      const report = JSON.parse(
        execFileSync(
          process.execPath,
          [main, 'outcomes', '--projects-dir', path.join(dir, 'projects'), '--json', '--apply'],
          { env },
        ).toString(),
      );
      expect(report).toMatchObject({
        transcripts: 1,
        spawns: 2,
        by_outcome: { succeeded: 1, failed: 1 },
        by_signal: { completed: 1, 'tool-error': 1 },
        doubtful: [],
      });
      expect(JSON.stringify(report)).not.toContain('token-expiry'); // no prompt or result text
      const written = readFileSync(path.join(dir, 'routing.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(written.map((l) => [l.source, l.tool_use_id, l.outcome])).toEqual([
        ['outcome', 'toolu_01Fz8Kd2Lm5Np7Qr3St6Uv9W', 'succeeded'],
        ['outcome', 'toolu_01Gy3Je6Hk8Mn1Pq4Rs7Tu2V', 'failed'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
