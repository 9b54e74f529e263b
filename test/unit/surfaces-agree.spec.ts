import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TestingModule } from '@nestjs/testing';
import type { DecideResult, QuestionResult } from '../../src/library/library.types';
import type { DecideResponseDto } from '../../src/mcp/dto/decide-response.dto';
import { DecideService } from '../../src/mcp/decide/decide.service';
import { gatewayApp, TEST_CONFIG_FILE } from '../helpers/gateway-app';
import { LibrarySandbox, TYPESAFE_KEY } from './library/library-setup';

/**
 * The two surfaces over the one decision pipeline: `system1_decide` (the S1 envelope) and `createSystem1()`
 * (the library). For the same config and the same one-question request they must reach the same outcome,
 * each in its own words; this suite maps both onto one normalised outcome and compares.
 *
 * The one difference on purpose: an unreadable answer. S1 retries the next engine (`retryBadAnswers`), the
 * library keeps it as that question's `invalid_response`. That is asserted in its own test below.
 */

type Family = 'timeout' | 'provider' | 'malformed' | 'config';

type Normalised =
  | { kind: 'answer'; value?: string; confidence: number; provider: string; belowThreshold?: true }
  | { kind: 'error'; family: Family }
  | { kind: 'not-asked' };

/** A failed attempt: who, how (refused = limit/unsupported, before anything was sent), and the words. */
interface FailedAttempt {
  provider: string;
  kind: 'timeout' | 'provider' | 'malformed' | 'refused' | 'other';
  detail: string;
}

interface Row {
  name: string;
  toml: string;
  options: string[];
  /** The outcome both surfaces must reach (value left out of a below-threshold answer: S1 does not give it). */
  expected: Normalised;
  /** The failed attempts both surfaces must report, in order (the library's `meta.attempts`, absent = none). */
  failures: Array<Pick<FailedAttempt, 'provider' | 'kind'>>;
  /**
   * S1's failed attempts where they differ from the library's: an attempt whose reply was read but whose
   * answer was unreadable is S1's failure, while for the library that attempt answered (with a question error).
   */
  s1Failures?: Array<Pick<FailedAttempt, 'provider' | 'kind'>>;
  /** Extra checks on the raw outputs. */
  check?: (s1: DecideResponseDto, lib: DecideResult) => void;
  /** Creates the `paused` file in the install dir first. */
  paused?: boolean;
}

const QUESTION = 'Rerun the flaky pipeline or block the merge?';
const TWO = ['opt1', 'opt2'];
const FOUR = ['opt1', 'opt2', 'opt3', 'opt4'];

/** `[gateway]` with cooldown off (so no row depends on an earlier one), then the provider tables. */
function toml(
  gateway: Record<string, string | number | string[]>,
  providers: Record<string, Record<string, string | number>>,
): string {
  const value = (v: string | number | string[]) => (typeof v === 'number' ? String(v) : JSON.stringify(v));
  const lines = ['[gateway]', 'cooldown_s = 0', ...Object.entries(gateway).map(([k, v]) => `${k} = ${value(v)}`)];
  for (const [name, settings] of Object.entries(providers)) {
    lines.push(
      '',
      `[providers.${name}]`,
      'type = "mock"',
      ...Object.entries(settings).map(([k, v]) => `${k} = ${value(v)}`),
    );
  }
  return lines.join('\n') + '\n';
}

const MOCK = {};
const FAILING = { fail: 'engine down' };
const SLOW = { delay_s: 10 };
const MALFORMED = { response: 'not an object' };
const NARROW = { max_options: 3 };

const ROWS: Row[] = [
  {
    name: 'plain decide on mock',
    toml: toml({ provider: 'primary' }, { primary: MOCK }),
    options: TWO,
    expected: { kind: 'answer', value: 'opt1', confidence: 0.9, provider: 'primary' },
    failures: [],
  },
  {
    name: 'plain decide among three options, confidence 0.7 over min_confidence 0.6',
    toml: toml({ provider: 'primary', min_confidence: 0.6 }, { primary: { confidence: 0.7 } }),
    options: ['opt1', 'opt2', 'opt3'],
    expected: { kind: 'answer', value: 'opt1', confidence: 0.7, provider: 'primary' },
    failures: [],
  },
  {
    name: 'below threshold (confidence 0.5, min_confidence 0.6)',
    toml: toml({ provider: 'primary', min_confidence: 0.6 }, { primary: { confidence: 0.5 } }),
    options: TWO,
    expected: { kind: 'answer', confidence: 0.5, provider: 'primary', belowThreshold: true },
    failures: [],
    check: (s1, lib) => {
      expect(s1.decision).toBeNull();
      expect(s1.rationale).toMatch(/below the threshold 0\.6/);
      expect(answerOf(lib)).toMatchObject({ status: 'ok', answer: { value: 'opt1' } });
    },
  },
  {
    name: 'failing primary + mock fallback',
    toml: toml({ provider: 'primary', fallback: ['backup'] }, { primary: FAILING, backup: MOCK }),
    options: TWO,
    expected: { kind: 'answer', value: 'opt1', confidence: 0.9, provider: 'backup' },
    failures: [{ provider: 'primary', kind: 'provider' }],
  },
  {
    name: 'failing primary + below-threshold fallback',
    toml: toml(
      { provider: 'primary', fallback: ['backup'], min_confidence: 0.6 },
      { primary: FAILING, backup: { confidence: 0.5 } },
    ),
    options: TWO,
    expected: { kind: 'answer', confidence: 0.5, provider: 'backup', belowThreshold: true },
    failures: [{ provider: 'primary', kind: 'provider' }],
  },
  {
    name: 'slow primary + mock fallback (timeout)',
    toml: toml({ provider: 'primary', fallback: ['backup'], timeout_s: 0.3 }, { primary: SLOW, backup: MOCK }),
    options: TWO,
    expected: { kind: 'answer', value: 'opt1', confidence: 0.9, provider: 'backup' },
    failures: [{ provider: 'primary', kind: 'timeout' }],
  },
  {
    name: 'only failing',
    toml: toml({ provider: 'primary' }, { primary: FAILING }),
    options: TWO,
    expected: { kind: 'error', family: 'provider' },
    failures: [{ provider: 'primary', kind: 'provider' }],
    check: (_s1, lib) =>
      expect(answerOf(lib)).toEqual({ status: 'error', error: { code: 'provider_error', message: 'engine down' } }),
  },
  {
    name: 'only slow',
    toml: toml({ provider: 'primary', timeout_s: 0.3 }, { primary: SLOW }),
    options: TWO,
    expected: { kind: 'error', family: 'timeout' },
    failures: [{ provider: 'primary', kind: 'timeout' }],
  },
  {
    name: 'failing primary + slow fallback: the last failure (timeout) is the outcome',
    toml: toml({ provider: 'primary', fallback: ['backup'], timeout_s: 0.3 }, { primary: FAILING, backup: SLOW }),
    options: TWO,
    expected: { kind: 'error', family: 'timeout' },
    failures: [
      { provider: 'primary', kind: 'provider' },
      { provider: 'backup', kind: 'timeout' },
    ],
  },
  {
    name: 'too many options for every provider (4 options, max_options = 3): a limit refusal on both',
    toml: toml({ provider: 'primary', fallback: ['backup'] }, { primary: NARROW, backup: NARROW }),
    options: FOUR,
    expected: { kind: 'error', family: 'provider' },
    failures: [
      { provider: 'primary', kind: 'refused' },
      { provider: 'backup', kind: 'refused' },
    ],
    check: (s1, lib) => {
      // The library says limit_exceeded in its own words; S1 folds it into provider_error and its attempts say "refused".
      expect(answerOf(lib)).toMatchObject({ status: 'error', error: { code: 'limit_exceeded' } });
      expect(lib.meta.attempts?.map((a) => a.error.code)).toEqual(['limit_exceeded', 'limit_exceeded']);
      expect(s1.error?.code).toBe('provider_error');
      for (const attempt of s1.attempts)
        expect(attempt.detail).toMatch(/^refused: .* takes at most 3 candidates per choice question/);
    },
  },
  {
    name: 'too many options for the primary only: the roomy fallback answers',
    toml: toml({ provider: 'primary', fallback: ['backup'] }, { primary: NARROW, backup: MOCK }),
    options: FOUR,
    expected: { kind: 'answer', value: 'opt1', confidence: 0.9, provider: 'backup' },
    failures: [{ provider: 'primary', kind: 'refused' }],
  },
  {
    name: 'malformed-answer primary with no fallback: both end malformed',
    toml: toml({ provider: 'primary' }, { primary: MALFORMED }),
    options: TWO,
    expected: { kind: 'error', family: 'malformed' },
    // S1 records the attempt as malformed; the library's attempt "answered" (meta.attempts absent).
    failures: [],
    s1Failures: [{ provider: 'primary', kind: 'malformed' }],
  },
  {
    name: 'a broken config (unknown key in [gateway])',
    toml: toml({ provider: 'primary', colour: 'red' }, { primary: MOCK }),
    options: TWO,
    expected: { kind: 'error', family: 'config' },
    failures: [],
    check: (s1, lib) => {
      const libError = answerOf(lib);
      expect(libError.status).toBe('error');
      const libMessage = libError.status === 'error' ? libError.error.message : '';
      expect(s1.error?.message).toMatch(/gateway\.colour is not a known key of \[gateway\]/);
      expect(sameFile(s1.error!.message)).toBe(sameFile(libMessage));
    },
  },
  {
    name: 'a broken provider table (unknown setting of a mock)',
    toml: toml({ provider: 'primary' }, { primary: { colour: 'red' } }),
    options: TWO,
    expected: { kind: 'error', family: 'config' },
    failures: [],
  },
  {
    name: 'paused',
    toml: toml({ provider: 'primary' }, { primary: MOCK }),
    options: TWO,
    paused: true,
    expected: { kind: 'not-asked' },
    failures: [],
    check: (s1, lib) => {
      expect(s1).toMatchObject({ status: 'abstained', provider: null, attempts: [] });
      expect(answerOf(lib)).toEqual({
        status: 'error',
        error: { code: 'unavailable', message: expect.stringMatching(/paused/) },
      });
    },
  },
];

// --- running one row through both surfaces -------------------------------------------------------

interface BothOutputs {
  s1: DecideResponseDto;
  lib: DecideResult;
}

async function runBoth(row: Pick<Row, 'toml' | 'options' | 'paused'>): Promise<BothOutputs> {
  const sandbox = new LibrarySandbox();
  let app: TestingModule | undefined;
  try {
    if (row.paused) writeFileSync(path.join(sandbox.installDir, 'paused'), 'paused by the test\n');
    // The same home and install dir (calibration fits, pause file) for both surfaces.
    const env = { HOME: sandbox.root, SYSTEM1_INSTALL_DIR: sandbox.installDir, SYSTEM1_TYPESAFE_API_KEY: TYPESAFE_KEY };
    app = await gatewayApp({ toml: row.toml, env });
    const s1 = await app.get(DecideService).decide({ question: QUESTION, options: row.options });

    // The same attempt budget on both surfaces: the library's own default (800 ms) is not the config's timeout_s.
    const timeoutS = Number(/timeout_s = ([\d.]+)/.exec(row.toml)?.[1] ?? 5);
    const system1 = await sandbox.open(row.toml, {}, { timeoutMs: timeoutS * 1000 });
    const criteria = Object.fromEntries(row.options.map((option) => [option, null]));
    const lib = await system1.decide({
      state: {},
      questions: { decision: { type: 'choice', instructions: QUESTION, criteria } },
    });
    return { s1, lib };
  } finally {
    await app?.close();
    await sandbox.close();
  }
}

function answerOf(lib: DecideResult): QuestionResult {
  expect(Object.keys(lib.answers)).toEqual(['decision']);
  return lib.answers.decision;
}

/** The config file's path is the only thing the two surfaces' config messages may differ by. */
function sameFile(message: string): string {
  return message
    .split(TEST_CONFIG_FILE)
    .join('<config>')
    .replace(/\/[^\s:]*system1-library-[^\s:]*\/config\.toml/g, '<config>');
}

// --- the normalisers ------------------------------------------------------------------------------

const S1_FAMILIES: Record<string, Family> = {
  provider_timeout: 'timeout',
  provider_error: 'provider',
  malformed_response: 'malformed',
  config_error: 'config',
};

function normaliseS1(s1: DecideResponseDto): Normalised {
  if (s1.status === 'decided')
    return { kind: 'answer', value: s1.decision!, confidence: s1.confidence!, provider: s1.provider! };
  if (s1.status === 'abstained') {
    if (s1.confidence !== null && s1.provider !== null && /below the threshold/.test(s1.rationale ?? '')) {
      return { kind: 'answer', confidence: s1.confidence, provider: s1.provider, belowThreshold: true };
    }
    if (s1.provider === null && s1.attempts.length === 0) return { kind: 'not-asked' };
    throw new Error(`an S1 abstention this suite does not expect: ${JSON.stringify(s1)}`);
  }
  const family = S1_FAMILIES[s1.error!.code];
  if (!family) throw new Error(`an S1 error code this suite does not expect: ${JSON.stringify(s1.error)}`);
  return { kind: 'error', family };
}

const LIBRARY_FAMILIES: Record<string, Family> = {
  timeout: 'timeout',
  unavailable: 'provider',
  unsupported: 'provider',
  limit_exceeded: 'provider',
  provider_error: 'provider',
  invalid_response: 'malformed',
};

/**
 * The library has no code for "not asked": a paused System-1 and a broken config both answer `unavailable`
 * (its seven codes, dsh-system1's), told apart only by the message the pipeline wrote.
 */
function normaliseLibrary(lib: DecideResult, withValue: boolean): Normalised {
  const answer = answerOf(lib);
  if (answer.status === 'ok') {
    const provider = lib.meta.executed!.provider;
    const value = answer.answer.type === 'choice' ? answer.answer.value : undefined;
    const confidence = answer.answer.confidence!;
    if (answer.belowThreshold)
      return { kind: 'answer', ...(withValue && { value: String(value) }), confidence, provider, belowThreshold: true };
    return { kind: 'answer', value: String(value), confidence, provider };
  }
  const { code, message } = answer.error;
  if (code === 'unavailable' && /is paused/.test(message)) return { kind: 'not-asked' };
  if (code === 'unavailable' && /^the config(uration)? is broken: /.test(message))
    return { kind: 'error', family: 'config' };
  const family = LIBRARY_FAMILIES[code];
  if (!family) throw new Error(`a library error code this suite does not expect: ${JSON.stringify(answer.error)}`);
  return { kind: 'error', family };
}

function s1Failures(s1: DecideResponseDto): FailedAttempt[] {
  return s1.attempts
    .filter((attempt) => attempt.outcome !== 'ok')
    .map((attempt) => {
      const detail = attempt.detail ?? '';
      const refused = detail.startsWith('refused: ');
      const kind =
        attempt.outcome === 'timeout'
          ? 'timeout'
          : attempt.outcome === 'malformed'
            ? 'malformed'
            : attempt.outcome === 'error'
              ? refused
                ? 'refused'
                : 'provider'
              : 'other';
      return { provider: attempt.provider, kind, detail: refused ? detail.slice('refused: '.length) : detail };
    });
}

function libraryFailures(lib: DecideResult): FailedAttempt[] | undefined {
  return lib.meta.attempts?.map(({ provider, error }) => {
    const kind =
      error.code === 'timeout'
        ? 'timeout'
        : error.code === 'invalid_response'
          ? 'malformed'
          : error.code === 'limit_exceeded' || error.code === 'unsupported'
            ? 'refused'
            : error.code === 'unavailable' || error.code === 'provider_error'
              ? 'provider'
              : 'other';
    return { provider, kind, detail: error.message };
  });
}

function kindOf(outcome: Normalised): 'answer' | 'belowThreshold' | 'error' | 'not-asked' {
  if (outcome.kind === 'answer') return outcome.belowThreshold ? 'belowThreshold' : 'answer';
  return outcome.kind;
}

/** Runs one row and asserts the surfaces agree (and reach what the row expects); returns the agreed outcome. */
async function assertAgree(row: Row): Promise<Normalised> {
  const { s1, lib } = await runBoth(row);
  const context = `row "${row.name}"\nS1: ${JSON.stringify(s1)}\nlibrary: ${JSON.stringify(lib)}`;
  const s1Outcome = normaliseS1(s1);
  const libOutcome = normaliseLibrary(lib, false);

  expect({ context, outcome: s1Outcome }).toEqual({ context, outcome: libOutcome });
  expect({ context, outcome: s1Outcome }).toEqual({ context, outcome: row.expected });

  const libFailures = libraryFailures(lib);
  const brief = (failures: FailedAttempt[]) => failures.map(({ provider, kind }) => ({ provider, kind }));
  // Same providers, same kinds, same words, whenever the library reports attempts.
  if (libFailures) expect({ context, failures: s1Failures(s1) }).toEqual({ context, failures: libFailures });
  expect({ context, failures: brief(libFailures ?? []) }).toEqual({ context, failures: row.failures });
  expect({ context, failures: brief(s1Failures(s1)) }).toEqual({ context, failures: row.s1Failures ?? row.failures });

  row.check?.(s1, lib);
  return s1Outcome;
}

// --- the suites ------------------------------------------------------------------------------------

describe('system1_decide and createSystem1() agree on one-question requests', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    await assertAgree(row);
  });

  // Each row above asserts that both surfaces reach the row's expected outcome: over the table, those cover
  // every kind of outcome and every error family, so the agreement is not vacuous.
  it('the rows expect every kind of outcome (answer, belowThreshold, error, not-asked) and every error family', () => {
    const kinds = new Set(ROWS.map((row) => kindOf(row.expected)));
    expect([...kinds].sort()).toEqual(['answer', 'belowThreshold', 'error', 'not-asked']);
    const families = new Set(ROWS.flatMap((row) => (row.expected.kind === 'error' ? [row.expected.family] : [])));
    expect([...families].sort()).toEqual(['config', 'malformed', 'provider', 'timeout']);
  });
});

describe('where the surfaces differ on purpose: an unreadable answer (retryBadAnswers)', () => {
  it('S1 moves on to the fallback and decides; the library keeps the primary reply and its invalid_response', async () => {
    const { s1, lib } = await runBoth({
      toml: toml({ provider: 'primary', fallback: ['backup'] }, { primary: MALFORMED, backup: MOCK }),
      options: TWO,
    });

    // S1: primary malformed, then backup decides.
    expect(normaliseS1(s1)).toEqual({ kind: 'answer', value: 'opt1', confidence: 0.9, provider: 'backup' });
    expect(s1.attempts.map(({ provider, outcome }) => ({ provider, outcome }))).toEqual([
      { provider: 'primary', outcome: 'malformed' },
      { provider: 'backup', outcome: 'ok' },
    ]);
    expect(s1.attempts[0].detail).toMatch(/not an object/);

    // The library: the primary's reply was read, so that question's error stands; backup never asked.
    expect(normaliseLibrary(lib, true)).toEqual({ kind: 'error', family: 'malformed' });
    expect(answerOf(lib)).toEqual({
      status: 'error',
      error: { code: 'invalid_response', message: expect.stringMatching(/not an object/) },
    });
    expect(lib.meta.executed).toEqual({ provider: 'primary' });
    expect(lib.meta.attempts).toBeUndefined();

    // And the problem is told in the same words on both sides.
    const libAnswer = answerOf(lib);
    expect(s1.attempts[0].detail).toBe(libAnswer.status === 'error' ? libAnswer.error.message : null);
  });
});
