// A jest reporter for the run's last lines: every test skipped, grouped by its file and the name it was skipped
// under (test/helpers/skip-unless.ts puts the reason there), so that a run which did not test everything says so.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

class SkippedReporter {
  constructor(globalConfig) {
    // A run filtered by -t skips what it was asked to: nothing to report then.
    this.filtered = Boolean(globalConfig.testNamePattern);
    this.text = '';
    this.hooked = false;
  }

  onRunComplete(_contexts, results) {
    if (this.filtered) return;
    const groups = new Map();
    for (const suite of results.testResults) {
      const file = path.relative(process.cwd(), suite.testFilePath);
      for (const test of suite.testResults) {
        if (test.status !== 'pending' && test.status !== 'skipped' && test.status !== 'todo') continue;
        const name =
          [...test.ancestorTitles, test.title].find((title) => title.includes('[SKIPPED: ')) ?? test.fullName;
        const key = `${file}: ${name}`;
        groups.set(key, (groups.get(key) ?? 0) + 1);
      }
    }
    const total = [...groups.values()].reduce((sum, count) => sum + count, 0);
    const lines = [...groups].map(([key, count]) => `  ${count} in ${key}`);
    this.text = groups.size === 0 ? '' : `\nSKIPPED: ${total} test(s) did not run:\n${lines.join('\n')}\n`;
    // Written as the process exits: after jest's summary (its reporter runs after this one) and after its
    // "did not exit one second after the test run" warning, so that these stay the run's last lines.
    if (this.hooked) return;
    this.hooked = true;
    process.once('exit', () => {
      if (this.text) fs.writeSync(2, this.text);
    });
  }
}

module.exports = SkippedReporter;
