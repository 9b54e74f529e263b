import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readPrices, usageReport } from '../../../src/routing/usage-report';
import { transcriptFiles } from '../../../src/routing/transcripts';
import { feedFifo, fifoIt, makeFifo } from '../../helpers/fifo';

const SESSION = '6f1c2b7e-3d94-4a51-9c0e-8b2f5a7d1e36';
const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ isSidechain: false, sessionId: SESSION, timestamp: '2026-11-30T09:14:00.000Z', ...fields });
const hint = (tier: string) =>
  line({
    type: 'attachment',
    attachment: {
      type: 'hook_additional_context',
      hookEvent: 'UserPromptSubmit',
      content: [
        `System-1 routing: this prompt reads as some work; when you spawn subagents for it, pass model: "${tier}".`,
      ],
    },
  });
const prompt = (text: string) => line({ type: 'user', message: { role: 'user', content: text } });
const spawn = (id: string, model: string) =>
  line({
    type: 'assistant',
    requestId: `req_${id}`,
    message: {
      id: `msg_${id}`,
      model: 'claude-opus-5-5',
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Agent', input: { description: 'x', prompt: 'y', model } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  });
const result = (id: string, agentId: string) =>
  line({
    type: 'user',
    toolUseResult: { status: 'completed', agentId },
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'done' }] },
  });
/** A subagent's lines: one response over two lines with a growing output count, as Claude Code writes it. */
const subagent = (model: string, input: number, output: number) =>
  [output / 2, output]
    .map((out) =>
      line({
        type: 'assistant',
        isSidechain: true,
        agentId: 'x',
        requestId: 'req_s',
        message: {
          id: 'msg_s',
          model,
          role: 'assistant',
          content: [{ type: 'text', text: '...' }],
          usage: { input_tokens: input, output_tokens: out },
        },
      }),
    )
    .join('\n');

describe('usage-report', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 's1-usage-'));
    const project = path.join(dir, '-home-dev-work-shop-api');
    mkdirSync(path.join(project, SESSION, 'subagents'), { recursive: true });
    writeFileSync(
      path.join(project, `${SESSION}.jsonl`),
      [
        prompt('Look up where the retry limit is configured and tell me the value'),
        hint('haiku'),
        spawn('t1', 'haiku'), // follows the hint
        result('t1', 'a1'),
        prompt('Plan the migration to the new payments provider with a rollback path'),
        hint('sonnet'),
        spawn('t2', 'opus'), // does not
        result('t2', 'a2'),
        prompt('thanks'),
        '{"cut off at a crash',
      ].join('\n'),
    );
    writeFileSync(path.join(project, SESSION, 'subagents', 'agent-a1.jsonl'), subagent('claude-haiku-5', 1000, 500));
    writeFileSync(path.join(project, SESSION, 'subagents', 'agent-a2.jsonl'), subagent('claude-opus-5-5', 2000, 1000));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts hints and adherence, prices subagents by tier, and the savings realised and missed', () => {
    const report = usageReport(transcriptFiles(dir, 0), readPrices());
    expect(report).toMatchObject({
      transcripts: 1,
      subagent_transcripts: 2,
      prompts: 3,
      hints: 2,
      spawns_after_hint: 2,
      adherence: 0.5,
    });
    expect(report.hint_rate).toBeCloseTo(2 / 3, 10);
    // haiku: 1000 in x $1 + 500 out x $5 = $0.0035; opus: 2000 x $5 + 1000 x $25 = $0.035 (per million tokens)
    expect(report.subagent_cost_usd_by_tier).toEqual({ haiku: 0.0035, sonnet: 0, opus: 0.035 });
    // realised: the haiku run priced at the orchestrator's opus ($0.0175) less what it cost ($0.0035)
    // missed: the opus run ($0.035) less the hinted sonnet ($0.021)
    expect(report.savings_usd).toEqual({ realised: 0.014, missed: 0.014 });
    expect(report.hint_overhead.characters).toBeGreaterThan(100);
    expect(report.hint_overhead.usd).toBeGreaterThan(0);
  });

  it('prints totals only, never prompt text', () => {
    const main = path.join(__dirname, '..', '..', '..', 'dist', 'main.js');
    const env = { PATH: process.env.PATH!, HOME: dir };
    const text =
      execFileSync(process.execPath, [main, 'usage-report', '--projects-dir', dir]).toString() +
      execFileSync(process.execPath, [main, 'usage-report', '--projects-dir', dir, '--json'], { env }).toString();
    expect(text).toContain('hints on 2 of 3 prompts (67%)');
    expect(text).not.toMatch(/retry limit|payments provider/);
  });

  fifoIt('refuses a FIFO as the prices file, naming it, instead of waiting on it', () => {
    const fifoDir = mkdtempSync(path.join(tmpdir(), 's1-prices-'));
    const fifo = makeFifo(fifoDir, 'prices.json');
    const feeder = feedFifo(fifo, JSON.stringify({ tiers: readPrices() }));
    try {
      expect(() => readPrices(fifo)).toThrow(`${fifo} is a FIFO, not a regular file`);
    } finally {
      feeder.stop();
      rmSync(fifoDir, { recursive: true, force: true });
    }
  });
});
