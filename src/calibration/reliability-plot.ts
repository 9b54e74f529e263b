import type { ThresholdRow } from './calibration-metrics';
import type { reliabilityBins } from './calibration-metrics';

type Bins = ReturnType<typeof reliabilityBins>;

export interface PlotData {
  title: string;
  before: Bins;
  after: Bins;
  /** Coverage against accuracy after calibration, one point per threshold. */
  thresholds: ThresholdRow[];
}

const point = (bins: Bins) => bins.filter((b) => b.n > 0).map((b) => [b.confidence, b.accuracy, b.n]);

/**
 * A reliability diagram (accuracy against confidence per bin, before and after the fit, with the diagonal
 * a calibrated engine would follow) beside the coverage/accuracy curve, as one SVG document drawn by
 * ECharts' server-side renderer. ECharts is loaded here only, since only `calibrate --plot` needs it.
 */
export function renderReliabilitySvg({ title, before, after, thresholds }: PlotData): string {
  const echarts = require('echarts') as typeof import('echarts');
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 1000, height: 460 });
  const unit = { type: 'value' as const, min: 0, max: 1 };
  chart.setOption({
    animation: false,
    backgroundColor: '#ffffff',
    title: [
      { text: title, left: 'center', top: 4, textStyle: { fontSize: 14 } },
      {
        text: 'Reliability (10 equal-width bins)',
        left: '22%',
        top: 34,
        textAlign: 'center',
        textStyle: { fontSize: 12 },
      },
      {
        text: 'Coverage against accuracy (after)',
        left: '76%',
        top: 34,
        textAlign: 'center',
        textStyle: { fontSize: 12 },
      },
    ],
    legend: { bottom: 4, data: ['before', 'after', 'perfect calibration', 'after (by threshold)'] },
    grid: [
      { left: 60, top: 70, width: 380, bottom: 70 },
      { left: 560, top: 70, width: 380, bottom: 70 },
    ],
    xAxis: [
      { ...unit, gridIndex: 0, name: 'confidence', nameLocation: 'middle', nameGap: 26 },
      { ...unit, gridIndex: 1, name: 'coverage', nameLocation: 'middle', nameGap: 26 },
    ],
    yAxis: [
      { ...unit, gridIndex: 0, name: 'accuracy', nameLocation: 'middle', nameGap: 36 },
      { ...unit, gridIndex: 1, name: 'accuracy', nameLocation: 'middle', nameGap: 36 },
    ],
    series: [
      {
        name: 'perfect calibration',
        type: 'line',
        xAxisIndex: 0,
        yAxisIndex: 0,
        data: [
          [0, 0],
          [1, 1],
        ],
        symbol: 'none',
        lineStyle: { type: 'dashed', color: '#999' },
      },
      { name: 'before', type: 'line', xAxisIndex: 0, yAxisIndex: 0, data: point(before), color: '#d9534f' },
      { name: 'after', type: 'line', xAxisIndex: 0, yAxisIndex: 0, data: point(after), color: '#2e7d32' },
      {
        name: 'after (by threshold)',
        type: 'line',
        xAxisIndex: 1,
        yAxisIndex: 1,
        color: '#1565c0',
        data: curvePoints(thresholds),
        label: { show: true, formatter: (p: { name: string }) => p.name, fontSize: 9, position: 'top' },
      },
    ],
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

/** One point per distinct (coverage, accuracy), labelled with the thresholds that give it. */
function curvePoints(thresholds: ThresholdRow[]) {
  const points = new Map<string, { value: [number, number]; thresholds: number[] }>();
  for (const row of thresholds) {
    if (row.accuracy === null) continue;
    const key = `${row.coverage}:${row.accuracy}`;
    const point = points.get(key) ?? { value: [row.coverage, row.accuracy] as [number, number], thresholds: [] };
    point.thresholds.push(row.threshold);
    points.set(key, point);
  }
  return [...points.values()].map(({ value, thresholds: ts }) => ({
    value,
    name: ts.length === 1 ? `>= ${ts[0]}` : `>= ${ts[0]}..${ts[ts.length - 1]}`,
  }));
}
