import { parsePrometheusText, sampleValue } from '../../helpers/prometheus-text';

const valid = [
  '# HELP requests_total Requests, "quoted" and a \\\\ backslash.',
  '# TYPE requests_total counter',
  'requests_total{route="/mcp",status="200"} 3',
  'requests_total{route="a\\"b\\\\c\\nd",status="500",} 1 1700000000000',
  '# a comment',
  '# TYPE latency_seconds histogram',
  'latency_seconds_bucket{le="0.1"} 1',
  'latency_seconds_bucket{le="+Inf"} 2',
  'latency_seconds_sum 0.35',
  'latency_seconds_count 2',
  '# TYPE lag gauge',
  'lag NaN',
  '',
].join('\n');

describe('the strict Prometheus text reader (for the metrics tests)', () => {
  it('reads families, labels with escapes, values and histograms', () => {
    const families = parsePrometheusText(valid);
    expect([...families.keys()]).toEqual(['requests_total', 'latency_seconds', 'lag']);
    expect(families.get('requests_total')?.help).toBe('Requests, "quoted" and a \\ backslash.');
    expect(sampleValue(families, 'requests_total', { route: 'a"b\\c\nd' })).toBe(1);
    expect(sampleValue(families, 'latency_seconds_count')).toBe(2);
    expect(sampleValue(families, 'lag')).toBeNaN();
  });

  it.each([
    ['no final line feed', 'x 1'],
    ['a sample without TYPE', 'x 1\n'],
    ['a second TYPE', '# TYPE x counter\n# TYPE x counter\nx 1\n'],
    ['TYPE after samples', '# TYPE x counter\nx 1\n# TYPE x counter\n'],
    ['an unknown type', '# TYPE x meter\nx 1\n'],
    ['a bad metric name', '# TYPE 1x counter\n1x 1\n'],
    ['a bad label name', '# TYPE x counter\nx{1a="b"} 1\n'],
    ['an unquoted label value', '# TYPE x counter\nx{a=b} 1\n'],
    ['an unterminated label value', '# TYPE x counter\nx{a="b} 1\n'],
    ['an invalid escape', '# TYPE x counter\nx{a="\\t"} 1\n'],
    ['labels without a comma', '# TYPE x counter\nx{a="1" b="2"} 1\n'],
    ['a label twice', '# TYPE x counter\nx{a="1",a="2"} 1\n'],
    ['no value', '# TYPE x counter\nx{a="1"}\n'],
    ['a value that is not a number', '# TYPE x counter\nx 1,5\n'],
    ['a negative counter', '# TYPE x counter\nx -1\n'],
    ['the same series twice', '# TYPE x counter\nx{a="1"} 1\nx{a="1"} 2\n'],
    ['a family split in two', '# TYPE x counter\nx 1\n# TYPE y gauge\ny 1\nx{a="1"} 2\n'],
    [
      'buckets that are not cumulative',
      '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n',
    ],
    ['no +Inf bucket', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n'],
    ['a +Inf bucket that is not the count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
