import { isRecord } from '../common/is-record';
import { ROUTES, type Route } from './route-report';

/** The thresholds a user picks `min_confidence` among. */
export const CANDIDATE_THRESHOLDS = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

/** Under this many comparisons at a threshold, its agreement says little. */
export const FEW_COMPARISONS = 30;

export interface AgreementRow {
  threshold: number;
  /** Requests the fast engine would have answered at this threshold. */
  fast: number;
  /** `fast` over every request recorded, ineligible ones included. */
  fast_share: number | null;
  /** Of those, how many had a readable slow answer to compare with, and how many agreed on every field. */
  compared: number;
  agreed: number;
  agreement: number | null;
}

export interface AgreementReport {
  records: number;
  unreadable_lines: number;
  /** Records whose slow answer could not be read to compare (too big, cut off, unreachable); counted in `records`. */
  slow_unavailable: number;
  by_route: Record<Route, number>;
  rows: AgreementRow[];
  target_agreement: number;
  /** The lowest candidate threshold whose agreement reaches the target (the most fast answers at that bar). */
  suggested: AgreementRow | null;
}

interface Field {
  confidence: number;
  agree?: boolean;
}

/**
 * Agreement and fast share at each candidate threshold, from shadow-log lines: a request counts as fast
 * at t when the engine answered every field at confidence t or more, and as agreeing when every one of
 * those fields matched the slow model's answer.
 */
export function agreementReport(lines: string[], targetAgreement: number): AgreementReport {
  const byRoute = Object.fromEntries(ROUTES.map((route) => [route, 0])) as Record<Route, number>;
  const answered: Field[][] = [];
  let records = 0;
  let unreadable = 0;
  let slowUnavailable = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      unreadable++;
      continue;
    }
    if (!isRecord(record) || !(ROUTES as readonly unknown[]).includes(record.route)) {
      unreadable++;
      continue;
    }
    records++;
    byRoute[record.route as Route]++;
    if (typeof record.slow_unavailable === 'string') slowUnavailable++;
    const fields = Array.isArray(record.fields) ? record.fields.filter(isField) : [];
    if (fields.length > 0) answered.push(fields);
  }
  const rows = CANDIDATE_THRESHOLDS.map((threshold) => row(threshold, answered, records));
  const suggested =
    rows.find((candidate) => candidate.agreement !== null && candidate.agreement >= targetAgreement) ?? null;
  return {
    records,
    unreadable_lines: unreadable,
    slow_unavailable: slowUnavailable,
    by_route: byRoute,
    rows,
    target_agreement: targetAgreement,
    suggested,
  };
}

function row(threshold: number, answered: Field[][], records: number): AgreementRow {
  const fast = answered.filter((fields) => fields.every((field) => field.confidence >= threshold));
  const compared = fast.filter((fields) => fields.every((field) => field.agree !== undefined));
  const agreed = compared.filter((fields) => fields.every((field) => field.agree === true)).length;
  return {
    threshold,
    fast: fast.length,
    fast_share: records === 0 ? null : fast.length / records,
    compared: compared.length,
    agreed,
    agreement: compared.length === 0 ? null : agreed / compared.length,
  };
}

const isField = (value: unknown): value is Field =>
  isRecord(value) &&
  typeof value.confidence === 'number' &&
  (value.agree === undefined || typeof value.agree === 'boolean');
