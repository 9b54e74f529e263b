// Draws bench/results/chart.svg (overhead, start-up and idle memory, side by side) from the result files,
// with ECharts' server-side SVG renderer.
'use strict';
const echarts = require('echarts');
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { RESULTS } = require('./provenance');

const results = (name) => JSON.parse(readFileSync(path.join(RESULTS, `${name}.json`), 'utf8'));
const overhead = results('overhead').levels['1'];
const startup = results('startup').stats;
const memory = results('memory').by_server;

const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 1280, height: 400 });
chart.setOption({
  animation: false,
  backgroundColor: '#ffffff',
  title: [
    {
      text: 'Overhead over a direct HTTP call, 1 in flight (ms)',
      left: 220,
      top: 8,
      textAlign: 'center',
      textStyle: { fontSize: 13 },
    },
    {
      text: 'Spawn to first answer / hook exit, median (ms)',
      left: 700,
      top: 8,
      textAlign: 'center',
      textStyle: { fontSize: 13 },
    },
    { text: 'Idle RSS (MB)', left: 1130, top: 8, textAlign: 'center', textStyle: { fontSize: 13 } },
  ],
  legend: { bottom: 4, itemGap: 48, data: ['minimal SDK server', 'gateway'] },
  grid: [
    { left: 50, top: 50, width: 340, bottom: 60 },
    { left: 480, top: 50, width: 440, bottom: 60 },
    { left: 1010, top: 50, width: 240, bottom: 60 },
  ],
  xAxis: [
    { type: 'category', gridIndex: 0, data: ['p50', 'p90', 'p99'] },
    {
      type: 'category',
      gridIndex: 1,
      data: ['node -e ""', 'minimal SDK server', 'gateway', 'route hook'],
      axisLabel: { interval: 0, fontSize: 10 },
    },
    {
      type: 'category',
      gridIndex: 2,
      data: ['minimal SDK server', 'gateway'],
      axisLabel: { interval: 0, fontSize: 10 },
    },
  ],
  yAxis: [
    { type: 'value', gridIndex: 0 },
    { type: 'value', gridIndex: 1 },
    { type: 'value', gridIndex: 2 },
  ],
  series: [
    {
      name: 'minimal SDK server',
      type: 'bar',
      xAxisIndex: 0,
      yAxisIndex: 0,
      color: '#90a4ae',
      data: ['p50', 'p90', 'p99'].map((p) => +overhead.overhead_minimal[p].toFixed(2)),
      label: { show: true, position: 'top' },
    },
    {
      name: 'gateway',
      type: 'bar',
      xAxisIndex: 0,
      yAxisIndex: 0,
      color: '#1565c0',
      data: ['p50', 'p90', 'p99'].map((p) => +overhead.overhead_gateway[p].toFixed(2)),
      label: { show: true, position: 'top' },
    },
    {
      name: 'start-up',
      type: 'bar',
      xAxisIndex: 1,
      yAxisIndex: 1,
      data: [
        { value: Math.round(startup['node -e ""'].p50), itemStyle: { color: '#cfd8dc' } },
        { value: Math.round(startup['minimal SDK server'].p50), itemStyle: { color: '#90a4ae' } },
        { value: Math.round(startup.gateway.p50), itemStyle: { color: '#1565c0' } },
        { value: Math.round(startup['route-hook (warm engine)'].p50), itemStyle: { color: '#1565c0' } },
      ],
      label: { show: true, position: 'top' },
    },
    {
      name: 'idle RSS',
      type: 'bar',
      xAxisIndex: 2,
      yAxisIndex: 2,
      data: [
        { value: Math.round(memory['minimal SDK server'].idle), itemStyle: { color: '#90a4ae' } },
        { value: Math.round(memory.gateway.idle), itemStyle: { color: '#1565c0' } },
      ],
      label: { show: true, position: 'top' },
    },
  ],
});
writeFileSync(path.join(RESULTS, 'chart.svg'), chart.renderToSVGString());
chart.dispose(); // ECharts keeps a timer alive until the chart is disposed
console.log(`wrote ${path.relative(process.cwd(), path.join(RESULTS, 'chart.svg'))}`);
