import { isRecord } from '../../common/is-record';
import { SettingValueError } from '../../config/setting-types';
import type { System1Provider } from './provider.interface';

/** One replica of a pooled engine: the provider configured for its endpoint, and its share of the traffic. */
export interface PoolMember {
  /** The endpoint as configured; '' for an engine configured without `endpoints` (its own single endpoint). */
  url: string;
  weight: number;
  provider: System1Provider;
}

/** A provider's engines: one, or the replicas its `endpoints` lists, all with the same settings and key. */
export type Pool = readonly PoolMember[];

/** An endpoint of `endpoints` as written: a URL, and its weight (1 unless given). */
export interface EndpointSpec {
  url: string;
  weight: number;
}

/** The most endpoints one pool may list. */
export const MAX_POOL_ENDPOINTS = 64;
/** The largest weight: a share of the traffic, so a bound keeps the arithmetic ordinary. */
export const MAX_ENDPOINT_WEIGHT = 1000;

/** The single engine of a provider configured without `endpoints`. */
export const singleEngine = (provider: System1Provider): Pool => [{ url: '', weight: 1, provider }];

/** Whether the pool has several replicas (its endpoints are then named in attempts, health and metrics). */
export const isPool = (pool: Pool): boolean => pool.length > 1;

/**
 * Reads `endpoints = [...]` from a provider's table: each a URL, or a `{url, weight}` table. Throws a SettingValueError
 * whose message says what is wrong (the caller names the key).
 */
export function readEndpoints(raw: unknown): EndpointSpec[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new SettingValueError('must be a non-empty list of endpoint URLs or {url, weight} tables');
  if (raw.length > MAX_POOL_ENDPOINTS)
    throw new SettingValueError(`lists ${raw.length} endpoints; at most ${MAX_POOL_ENDPOINTS}`);
  return distinct(raw.map((entry, index) => readEntry(entry, index)));
}

/** `SYSTEM1_<NAME>_ENDPOINTS`: a comma-separated list of URLs, each of weight 1. */
export function endpointsFromEnv(raw: string): EndpointSpec[] {
  return readEndpoints(
    raw
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  );
}

function readEntry(entry: unknown, index: number): EndpointSpec {
  if (typeof entry === 'string') return { url: checkedUrl(entry, index), weight: 1 };
  if (!isRecord(entry)) throw new SettingValueError(`[${index}] must be a URL or a {url, weight} table`);
  const unknown = Object.keys(entry).filter((key) => key !== 'url' && key !== 'weight');
  if (unknown.length > 0)
    throw new SettingValueError(
      `[${index}] has ${unknown.map((key) => JSON.stringify(key)).join(', ')}; an endpoint takes url and weight`,
    );
  if (typeof entry.url !== 'string') throw new SettingValueError(`[${index}] needs a url`);
  const weight = entry.weight ?? 1;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0 || weight > MAX_ENDPOINT_WEIGHT) {
    throw new SettingValueError(`[${index}].weight must be a number above 0 and at most ${MAX_ENDPOINT_WEIGHT}`);
  }
  return { url: checkedUrl(entry.url, index), weight };
}

function checkedUrl(url: string, index: number): string {
  const trimmed = url.trim();
  if (trimmed === '') throw new SettingValueError(`[${index}] is an empty URL`);
  return trimmed;
}

/** The same replica twice would count its load as two: refused. */
function distinct(specs: EndpointSpec[]): EndpointSpec[] {
  const seen = new Set<string>();
  for (const spec of specs) {
    const key = canonical(spec.url);
    if (seen.has(key)) throw new SettingValueError(`lists ${spec.url} twice`);
    seen.add(key);
  }
  return specs;
}

function canonical(url: string): string {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return url; // the provider reports it, naming the entry
  }
}
