/** The balancer's rule and the load it reads, without sockets. */
import { pickEndpoint } from '../../../src/decisions/pools/endpoint-balancer';
import {
  EndpointLoad,
  LATENCY_HALF_LIFE_MS,
  MIN_PERCENTILE_SAMPLES,
} from '../../../src/decisions/pools/endpoint-load.service';
import type { PoolMember } from '../../../src/decisions/registry/engine-pool';

const member = (url: string, weight = 1): PoolMember => ({ url, weight, provider: {} as PoolMember['provider'] });
const [a, b, c] = [member('a'), member('b'), member('c')];

describe('pickEndpoint', () => {
  it('takes the replica with the fewest requests in flight', () => {
    expect(
      pickEndpoint(
        [
          { member: a, inFlight: 3 },
          { member: b, inFlight: 1 },
          { member: c, inFlight: 2 },
        ],
        0,
      )!.member,
    ).toBe(b);
  });

  it('counts in flight against weight: 3 in flight at weight 2 is less load than 2 at weight 1', () => {
    expect(
      pickEndpoint(
        [
          { member: member('heavy', 2), inFlight: 3 },
          { member: a, inFlight: 2 },
        ],
        0,
      )!.member.url,
    ).toBe('heavy');
  });

  it('breaks ties by the lower moving average of latency, and gives an unmeasured replica its first sample', () => {
    expect(
      pickEndpoint(
        [
          { member: a, inFlight: 1, ewmaMs: 30 },
          { member: b, inFlight: 1, ewmaMs: 12 },
        ],
        0,
      )!.member,
    ).toBe(b);
    expect(
      pickEndpoint(
        [
          { member: a, inFlight: 1, ewmaMs: 30 },
          { member: b, inFlight: 1 },
        ],
        0,
      )!.member,
    ).toBe(b);
  });

  it('shares exact ties in turn', () => {
    const picks = [0, 1, 2, 3, 4, 5].map(
      (turn) =>
        pickEndpoint(
          [
            { member: a, inFlight: 0 },
            { member: b, inFlight: 0 },
            { member: c, inFlight: 0 },
          ],
          turn,
        )!.member.url,
    );
    expect(picks).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('picks nothing from nothing', () => {
    expect(pickEndpoint([], 7)).toBeUndefined();
  });
});

class ClockedLoad extends EndpointLoad {
  clock = 0;
  protected override now(): number {
    return this.clock;
  }
}

describe('EndpointLoad', () => {
  it('counts a call in flight until it ends, once, and averages the latency of answers only', () => {
    const load = new ClockedLoad();
    const first = load.start('laya', a);
    const second = load.start('laya', a);
    expect(load.of('laya', a).inFlight).toBe(2);
    first('answered', 10);
    first('answered', 99); // a second end of the same call changes nothing
    second('other', 500); // an error says nothing about latency
    expect(load.of('laya', a)).toEqual({ provider: 'laya', endpoint: 'a', inFlight: 0, ewmaMs: 10 });
    load.start('laya', a)('slow', 60); // a timeout, or the losing copy of a hedge: slow at least this much
    expect(load.of('laya', a).ewmaMs).toBeCloseTo(20);
  });

  it('lets the average of a replica that gets no traffic fade, halving every half-life', () => {
    const load = new ClockedLoad();
    load.start('laya', a)('answered', 40);
    load.clock += LATENCY_HALF_LIFE_MS;
    expect(load.of('laya', a).ewmaMs).toBeCloseTo(20);
    load.clock += LATENCY_HALF_LIFE_MS;
    expect(load.of('laya', a).ewmaMs).toBeCloseTo(10);
  });

  it("reads a pool's recent percentile once it has enough samples", () => {
    const load = new ClockedLoad();
    for (let i = 1; i < MIN_PERCENTILE_SAMPLES; i++) load.start('laya', i % 2 ? a : b)('answered', i);
    expect(load.percentile('laya', 0.95)).toBeUndefined();
    for (let i = MIN_PERCENTILE_SAMPLES; i <= 100; i++) load.start('laya', i % 2 ? a : b)('answered', i);
    expect(load.percentile('laya', 0.95)).toBe(95);
    expect(load.percentile('other', 0.95)).toBeUndefined();
  });
});
