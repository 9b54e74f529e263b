#!/usr/bin/env node
'use strict';
// Prints RESULTS.md's real-size tables from results/shape-<shape>.json (bench.js --shape writes them), so the
// figures in RESULTS.md are copied by a script, never by hand:
//   node test-support/shape-table.js gte-modernbert minilm-l6
const fs = require('node:fs');
const path = require('node:path');

const ms = (value) => `${Math.round(value).toLocaleString('en-US')} ms`;

function table(shape) {
  const results = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'results', `shape-${shape}.json`), 'utf8'));
  const { float32, int8 } = results.dtypes;
  const rows = float32.cells.map((cell, i) => {
    const quantized = int8.cells[i];
    const tokens = cell.longest_pair === cell.tokens_per_pair ? cell.tokens_per_pair : `up to ${cell.longest_pair}`;
    return `| ${cell.cell} | ${tokens} | ${cell.gflop.toLocaleString('en-US')} | ${ms(cell.p50_ms)} (${cell.p50_over_floor}x) | ${ms(quantized.p50_ms)} (${quantized.p50_over_floor}x) |`;
  });
  const short20 = (cells) => cells.find((cell) => cell.cell === '20 short').p50_ms;
  const mixed = (cells) => cells.find((cell) => cell.cell === '19 short + 1 long').p50_ms;
  const ratio = (cells) => (mixed(cells) / short20(cells)).toFixed(2);
  return [
    `| ${shape} | tokens a pair | GFLOP | float32 p50 (x floor) | int8 p50 (x int8 floor) |`,
    '|---|---:|---:|---:|---:|',
    ...rows,
    '',
    `Floor: ${float32.floor.gflops_per_second} GFLOP/s float32, ${int8.floor.gflops_per_second} GOP/s int8. ` +
      `19 short + 1 long over 20 short: ${ratio(float32.cells)}x float32, ${ratio(int8.cells)}x int8. ` +
      `Runs: float32 ${float32.date} (commit ${float32.commit}, load ${float32.machine.load_average_1m}), ` +
      `int8 ${int8.date} (commit ${int8.commit}, load ${int8.machine.load_average_1m}).`,
  ].join('\n');
}

console.log(process.argv.slice(2).map(table).join('\n\n'));
