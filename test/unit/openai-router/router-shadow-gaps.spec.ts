/** Shadow mode keeps a record of every request, even when the slow answer cannot be compared, and the report counts it. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { agreementReport } from '../../../src/openai-router/agreement-report';
import { FAST_OBJECT, NETFLIX, SYSTEM, Transaction } from '../../fixtures/bank-transaction';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { UpstreamForwarder } from '../../../src/openai-router/upstream-forwarder';
import { confidentDecider, errorOf, eventually, RouterHarness, send } from '../../helpers/router-harness';
import { zodResponseFormat } from 'openai/helpers/zod';

const harness = RouterHarness.use();

const eligible = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: NETFLIX },
  ],
  response_format: zodResponseFormat(Transaction, 'Transaction'),
});

async function shadowRecords(shadowLog: string, count: number): Promise<Record<string, unknown>[]> {
  const read = () => {
    try {
      return readFileSync(shadowLog, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return (await eventually(read, (lines) => lines.length >= count)).map(
    (line) => JSON.parse(line) as Record<string, unknown>,
  );
}

describe('a compressed slow answer', () => {
  it.each(['gzip', 'br'] as const)('(%s) is compared like any other', async (encoding) => {
    harness.upstream.contentEncoding = encoding;
    harness.upstream.answer = { ...FAST_OBJECT, category: 'dining' };
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog });
    expect((await send(router.port, { body: eligible, headers: { 'accept-encoding': encoding } })).status).toBe(200);
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record.slow_unavailable).toBeUndefined();
    expect((record.fields as { id: string; agree?: boolean }[]).map((field) => [field.id, field.agree])).toEqual(
      Object.keys(FAST_OBJECT).map((id) => [id, id !== 'category']),
    );
  });
});

describe('a slow answer that cannot be compared', () => {
  it('over 8 MiB: served whole, and recorded as slow answer unavailable with the reason', async () => {
    harness.upstream.paddingBytes = 9 * 1024 * 1024;
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog });
    const answer = await send(router.port, { body: eligible });
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThan(9 * 1024 * 1024);
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record).toMatchObject({
      route: 'fast',
      slow_status: 200,
      slow_unavailable: expect.stringContaining('over 8 MiB'),
    });
    expect((record.fields as { id: string; agree?: boolean }[]).map((field) => [field.id, field.agree])).toEqual(
      Object.keys(FAST_OBJECT).map((id) => [id, undefined]),
    );
  });

  it.each(['gzip', 'br'] as const)(
    'compressed (%s) to a few KiB but over 8 MiB once decompressed: served whole, and recorded as unavailable, never inflated',
    async (encoding) => {
      harness.upstream.contentEncoding = encoding;
      harness.upstream.paddingBytes = 9 * 1024 * 1024;
      const shadowLog = path.join(harness.dir, 'shadow.jsonl');
      const router = await harness.start({ shadow: true, shadowLog });
      const answer = await send(router.port, { body: eligible, headers: { 'accept-encoding': encoding } });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-encoding']).toBe(encoding);
      expect(answer.text.length).toBeLessThan(1024 * 1024);
      const [record] = await shadowRecords(shadowLog, 1);
      expect(record).toMatchObject({
        route: 'fast',
        slow_status: 200,
        slow_unavailable: 'the slow answer decompresses to over 8 MiB, more than the router keeps to compare',
      });
      expect((record.fields as { agree?: boolean }[]).every((field) => field.agree === undefined)).toBe(true);
    },
  );

  it('past what the router keeps of slow answers at once, all requests together: served whole, recorded as unavailable', async () => {
    harness.upstream.paddingBytes = 600 * 1024;
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog, limits: { maxKeptSlowBytes: 256 * 1024 } });
    const answer = await send(router.port, { body: eligible });
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThan(600 * 1024);
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record).toMatchObject({
      route: 'fast',
      slow_status: 200,
      slow_unavailable:
        'the router was keeping as much of slow answers as it may at once (256 KiB, all requests together), ' +
        'so it did not keep this one to compare',
    });
  });

  it('cut off mid-body: the caller sees a cut answer, and the record names the failure', async () => {
    harness.upstream.fault = 'cut-body';
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog });
    await expect(send(router.port, { body: eligible })).rejects.toThrow();
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record).toMatchObject({
      route: 'fast',
      slow_status: 200,
      slow_unavailable: expect.stringMatching(/the slow answer (failed|ended) before it was complete/),
    });
  });

  it('router-report counts such records among the requests, and says how many had no slow answer', async () => {
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog });
    expect((await send(router.port, { body: eligible })).status).toBe(200);
    harness.upstream.paddingBytes = 9 * 1024 * 1024;
    expect((await send(router.port, { body: eligible })).status).toBe(200);
    await shadowRecords(shadowLog, 2);
    const report = agreementReport(readFileSync(shadowLog, 'utf8').split('\n'), 0.95);
    expect(report.records).toBe(2);
    expect(report.slow_unavailable).toBe(1);
    expect(report.rows.find((row) => row.threshold === 0.8)).toMatchObject({ fast: 2, compared: 1 });
  });
});

describe('a slow answer that is gone before the fast engine has decided', () => {
  /** The upstream answers the router opens, as they open; and a fast engine that decides when the test says. */
  function watched() {
    const opened: IncomingMessage[] = [];
    const open = UpstreamForwarder.prototype.open;
    jest.spyOn(UpstreamForwarder.prototype, 'open').mockImplementation(async function (this: UpstreamForwarder, call) {
      const response = await open.call(this, call);
      opened.push(response);
      return response;
    });
    const decider = confidentDecider();
    let decide!: () => void;
    decider.gate = new Promise<void>((resolve) => (decide = resolve));
    /** Lets the engine answer once the router has seen the upstream's answer end. */
    const decideOnceGone = async () => {
      await eventually(
        () => opened[0]?.destroyed,
        (destroyed) => destroyed === true,
      );
      decide();
    };
    return { decider, decideOnceGone };
  }

  it('cut off by the upstream meanwhile: the caller gets a readable 502, not a hang, and the record says why', async () => {
    harness.upstream.fault = 'cut-body';
    const { decider, decideOnceGone } = watched();
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog }, decider);
    const answer = send(router.port, { body: eligible });
    await decideOnceGone();
    const reply = await answer;
    expect(reply.status).toBe(502);
    expect(reply.headers['x-system1-route']).toBe('fast; shadow');
    const gone =
      'the slow answer was gone before the router could relay it (cut off by the upstream, or the caller left)';
    expect(errorOf(reply)).toMatchObject({ code: 'upstream_error', message: gone });
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record).toMatchObject({ route: 'fast', slow_unavailable: gone });
  });

  it('the caller left meanwhile: the request is still recorded and logged', async () => {
    const { decider, decideOnceGone } = watched();
    const shadowLog = path.join(harness.dir, 'shadow.jsonl');
    const router = await harness.start({ shadow: true, shadowLog }, decider);
    const leaving = request({ host: '127.0.0.1', port: router.port, method: 'POST', path: '/v1/chat/completions' });
    leaving.on('error', () => undefined);
    leaving.setHeader('content-type', 'application/json');
    leaving.end(eligible);
    await eventually(
      () => harness.upstream.hits.length,
      (hits) => hits === 1,
    );
    leaving.destroy();
    await decideOnceGone();
    const [record] = await shadowRecords(shadowLog, 1);
    expect(record).toMatchObject({ route: 'fast', slow_unavailable: expect.stringContaining('gone before') });
    expect(
      await eventually(
        () => harness.answered(502),
        (lines) => lines.length === 1,
      ),
    ).toHaveLength(1);
  });
});
