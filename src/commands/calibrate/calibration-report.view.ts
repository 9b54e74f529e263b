import type { GroupReport } from '../../calibration/calibration-report';
import type { CalibrationReport } from './calibration-runner.service';
import { percent } from '../number-format';

const f = (value: number | null | undefined, digits = 3) => (value === null || value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits));
const ci = (interval: [number, number] | null) => (interval ? ` [${f(interval[0])}, ${f(interval[1])}]` : '');

/** The human report of `system1 calibrate`: every figure of the JSON document, in plain lines. */
export function renderCalibrationReport(report: CalibrationReport, savedTo: string | null, plot?: string): string {
  const { rows } = report;
  const lines = [
    `calibrate: ${report.data} against ${report.provider}${report.model ? ` (${report.model})` : ''}`,
    `  ${rows.examples} examples: ${rows.answered} answered, ${rows.abstained} abstained, ${rows.failed} failed, ${rows.not_asked} not asked` +
      `${rows.without_probabilities ? `, ${rows.without_probabilities} without probabilities` : ''}; ${rows.lines_skipped.length} lines skipped`,
  ];
  if (rows.stopped_because) lines.push(`  stopped early: ${rows.stopped_because}; the ${rows.not_asked} examples not asked are not counted`);
  lines.push(`  ECE uses ${report.binning}; intervals are 95% bootstrap intervals; "held out" is 5-fold cross-validated.`);
  for (const question of report.questions) {
    lines.push('', `Question: ${JSON.stringify(question.question)} (${question.option_counts.join('/')} options)`, ...group(question, report.target_accuracy));
  }
  if (report.overall && report.questions.length > 1) lines.push('', 'Overall (each answer scaled by its question\'s fit)', ...group(report.overall, report.target_accuracy));
  if (report.option_counts.length) {
    lines.push('', 'Fallback fits per option count: ' + report.option_counts.map((c) => `${c.option_count} options T=${f(c.temperature)} (n ${c.n}${c.at_bound ? ', at a bound' : ''})`).join('; '));
  }
  for (const held of report.held_back) lines.push(`  not saved: ${held.question ? JSON.stringify(held.question) : `${held.option_count} options`}: ${held.reason}`);
  lines.push('');
  if (savedTo) lines.push(report.fits.length ? `Saved ${report.fits.length} fits to ${savedTo}.` : 'Nothing saved: no fit is good enough to save.');
  else lines.push(`${report.fits.length} fits ready: --write saves them for this machine, --ship into the package.`);
  if (plot) lines.push(`Plot: ${plot}`);
  return lines.join('\n');
}

function group(report: GroupReport, target: number): string[] {
  const lines = [
    `  n ${report.n}   accuracy ${f(report.accuracy)}${ci(report.accuracy_ci)}   AUROC ${f(report.auroc)}${ci(report.auroc_ci)}`,
    `  temperature ${f(report.temperature)}${report.at_bound ? ' (at a bound)' : ''}   log loss ${f(report.log_loss_before)} -> ${f(report.log_loss_after)}`,
    `  ECE ${f(report.ece_before)}${ci(report.ece_before_ci)} -> ${f(report.ece_after)}${ci(report.ece_after_ci)}   held out ${f(report.ece_held_out)}   ` +
      `noise floor at this n ${f(report.ece_noise_floor.mean)} (95%: ${f(report.ece_noise_floor.p95)})`,
    '  threshold  coverage  accuracy     n',
    ...report.thresholds.map((row) => `  ${f(row.threshold, 2).padStart(9)}  ${percent(row.coverage).padStart(8)}  ${f(row.accuracy).padStart(8)}  ${String(row.n).padStart(4)}`),
    report.recommended_threshold
      ? `  recommended min_confidence for ${percent(target)} accuracy: ${f(report.recommended_threshold.threshold, 2)} (decides ${percent(report.recommended_threshold.coverage)}, accuracy ${f(report.recommended_threshold.accuracy)})`
      : `  no threshold reaches ${percent(target)} accuracy`,
  ];
  for (const warning of report.warnings) lines.push(`  ! ${warning}`);
  return lines;
}
