/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), for tests: it throws, naming the line,
 * on anything a Prometheus server would refuse or misread, and checks what the format promises beyond syntax
 * (one TYPE per family, before its samples; a family's lines together; no series twice; counters not
 * negative; histogram buckets cumulative, with a +Inf bucket equal to `_count`).
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const series = new Set<string>();
  const typed = new Set<string>();
  let current: Family | undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] !== '') throw new Error('the exposition must end with a line feed');
  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!meta) return; // a comment
      const [, kind, name, rest = ''] = meta;
      if (!METRIC_NAME.test(name)) fail('not a metric name');
      const family = families.get(name) ?? { name, type: 'untyped' as MetricType, samples: [] };
      if (family.samples.length > 0) fail(`${kind} after the family's samples`);
      if (families.has(name) && current !== family) fail("the family's lines are not together");
      if (kind === 'TYPE') {
        if (typed.has(name)) fail('a second TYPE');
        if (!TYPES.includes(rest.trim() as MetricType)) fail('an unknown type');
        family.type = rest.trim() as MetricType;
        typed.add(name);
      } else {
        if (family.help !== undefined) fail('a second HELP');
        family.help = unescape(rest, false, fail);
      }
      families.set(name, family);
      current = family;
      return;
    }
    const sample = readSample(line, fail);
    const family = familyOf(sample.name, families) ?? fail('a sample of no declared family (TYPE must come first)');
    if (family !== current) fail("the family's lines are not together");
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (series.has(key)) fail('the same series twice');
    series.add(key);
    if (family.type === 'counter' && !(sample.value >= 0)) fail('a counter below zero');
    if (family.type === 'histogram' && sample.name.endsWith('_bucket') && sample.labels.le === undefined)
      fail('a bucket without le');
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** The family a sample belongs to: its own name, or the name without a suffix its type allows. */
function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  for (const family of families.values()) {
    if (SUFFIXES[family.type].some((suffix) => `${family.name}${suffix}` === sampleName)) return family;
  }
  return undefined;
}

function readSample(line: string, fail: (why: string) => never): Sample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line) ?? fail('no metric name');
  const name = head[1];
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = /^([^=]*)="/.exec(rest) ?? fail('a label without ="');
      if (!LABEL_NAME.test(label[1])) fail(`an invalid label name ${JSON.stringify(label[1])}`);
      if (Object.hasOwn(labels, label[1])) fail(`label ${label[1]} twice`);
      rest = rest.slice(label[0].length);
      let raw = '';
      for (;;) {
        if (rest === '') fail('an unterminated label value');
        if (rest[0] === '"') break;
        if (rest[0] === '\\') {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else {
          raw += rest[0];
          rest = rest.slice(1);
        }
      }
      labels[label[1]] = unescape(raw, true, fail);
      rest = rest.slice(1);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}')) fail('labels not separated by a comma');
    }
    rest = rest.slice(1);
  }
  const value = /^ +(\S+)(?: +(-?\d+))?$/.exec(rest) ?? fail('no value after the name and labels');
  return { name, labels, value: readValue(value[1], fail) };
}

/** A value as Go's ParseFloat reads it (the format's rule), so NaN and Inf in any case. */
function readValue(text: string, fail: (why: string) => never): number {
  if (/^nan$/i.test(text)) return Number.NaN;
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) fail(`not a number: ${text}`);
  return Number(text);
}

function unescape(text: string, quoted: boolean, fail: (why: string) => never): string {
  return text.replace(/\\(.?)/g, (_, char: string) => {
    if (char === '\\') return '\\';
    if (char === 'n') return '\n';
    if (char === '"' && quoted) return '"';
    return fail(`an invalid escape \\${char}`);
  });
}

function checkHistogram(family: Family): void {
  const groups = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) group.buckets.push([le === '+Inf' ? Infinity : Number(le), sample.value]);
    if (sample.name.endsWith('_count')) group.count = sample.value;
  }
  for (const [key, { buckets, count }] of groups) {
    const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i][1] < sorted[i - 1][1]) throw new Error(`${family.name}${key}: buckets are not cumulative`);
    }
    const last = sorted[sorted.length - 1];
    if (!last || last[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (count === undefined || last[1] !== count)
      throw new Error(`${family.name}${key}: the +Inf bucket is not _count`);
  }
}

/** The value of the one sample named `name` whose labels include `labels`; throws when none or several match. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const matches = [...families.values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  if (matches.length !== 1) throw new Error(`${matches.length} samples of ${name}${JSON.stringify(labels)}`);
  return matches[0].value;
}

/** The sum of every sample named `name` whose labels include `labels` (0 when none). */
export function sampleSum(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  return [...families.values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}
