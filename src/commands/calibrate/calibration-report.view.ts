import type { GroupReport } from '../../calibration/calibration-report';
import type { AppliedFit } from '../../calibration/calibration-figures';
import type { CalibrationReport } from './calibration-runner.service';
import { percent } from '../number-format';
import { canReject } from '../../calibration/guaranteed-threshold';
import { guaranteeFigures, guaranteeSentence, noGuarantee } from './guarantee.view';

const f = (value: number | null | undefined, digits = 3) =>
  value === null || value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
const ci = (interval: [number, number] | null) => (interval ? ` [${f(interval[0])}, ${f(interval[1])}]` : '');
/** Lines listed one by one before the rest is summed up (the JSON document lists them all). */
const LISTED = 10;

/** The human report of `system1 calibrate`: the headline first, then each fit, the untrusted ones apart. */
export function renderCalibrationReport(report: CalibrationReport, savedTo: string | null, plot?: string): string[] {
  const { rows } = report;
  const lines = [
    `calibrate: ${report.data} against ${report.provider}${report.model ? ` (${report.model})` : ''}`,
    `  ${rows.examples} examples: ${rows.answered} answered, ${rows.abstained} abstained, ` +
      `${rows.failed} failed, ${rows.not_asked} not asked` +
      `${rows.without_probabilities ? `, ${rows.without_probabilities} without probabilities` : ''}; ` +
      `${rows.lines_skipped.length} lines skipped`,
  ];
  if (rows.stopped_because)
    lines.push(`  stopped early: ${rows.stopped_because}; the ${rows.not_asked} examples not asked are not counted`);
  lines.push(
    `  ECE uses ${report.binning}; intervals are 95% bootstrap intervals; "held out" is 5-fold ` +
      'cross-validated, folds stratified by label; a fit is trusted on held-out log loss and Brier.',
  );

  if (report.overall) {
    const used = report.overall_fits;
    lines.push(
      '',
      'Overall, as decisions will see it once these fits are saved: ' +
        'each answer scaled by the fit the gateway would apply',
      `  (${used.by_question} by their question's fit, ${used.by_option_count} by their option count's, ` +
        `${used.none} unscaled: no trusted fit;`,
      '  held out: the same rule with fits made on the other folds)',
      ...group(report.overall, report.target_accuracy, false),
      ...listed(
        used.fits,
        (fit) =>
          `  applied ${fitName(fit)} T=${f(fit.temperature)} (n ${fit.n}, ${fit.from}) to ${fit.answers} answers`,
        'fits applied',
      ),
      ...overallGuarantee(report),
      ...questionGuarantees(report),
    );
  }

  const trusted = report.questions.filter((q) => q.trusted);
  for (const question of trusted) {
    lines.push(
      '',
      `Question: ${JSON.stringify(question.question)} (${question.option_counts.join('/')} options)`,
      ...group(question, report.target_accuracy),
    );
  }
  if (report.option_counts.length) {
    lines.push('', 'Fits per option count (for questions without a trusted fit of their own):');
    for (const count of report.option_counts) {
      lines.push(
        `  ${count.option_count} options: n ${count.n}, ` +
          `T=${f(count.temperature)}${count.at_bound ? ' (at a bound)' : ''}, ` +
          `ECE ${f(count.ece_before)} -> ${f(count.ece_after)}, ` +
          `held out ${f(count.ece_held_out)}; ${count.verdict}` +
          `${count.caveats.length ? `; ${count.caveats.join('; ')}` : ''}`,
      );
    }
  }
  const untrusted = report.questions.filter((q) => !q.trusted);
  if (untrusted.length) {
    lines.push(
      '',
      `Question fits NOT TRUSTED (not saved, not applied; their own figures, each on its own answers only):`,
    );
    lines.push(
      ...listed(
        untrusted,
        (q) =>
          `  ${JSON.stringify(q.question)}: n ${q.n}, ` +
          `T=${f(q.temperature)}${q.at_bound ? ' (at a bound)' : ''}, ` +
          `ECE ${f(q.ece_before)} -> ${f(q.ece_after)}: ${q.verdict}`,
        'untrusted question fits',
      ),
    );
  }
  lines.push('');
  if (savedTo)
    lines.push(
      report.fits.length
        ? `Saved ${report.fits.length} fits to ${savedTo}.`
        : 'Nothing saved: no fit is good enough to save.',
    );
  else
    lines.push(
      `${report.fits.length} trusted fits ready: --write saves them for this machine, --ship into the package.`,
    );
  if (report.held_back.length)
    lines.push(
      `${report.held_back.length} untrusted fits held back (the JSON document's held_back says why, for each).`,
    );
  if (plot) lines.push(`Plot: ${plot}`);
  return lines;
}

/** The threshold with a guarantee beside the table, and the min_confidence the report recommends. */
function overallGuarantee(report: CalibrationReport): string[] {
  const found = report.guaranteed_threshold;
  const heading = `  A threshold with a guarantee (held-out confidences, risk ${report.risk}):`;
  if (!found)
    return [
      heading,
      `    ${noGuarantee(report, report.target_accuracy, report.risk)}`,
      '  Recommended min_confidence: none yet: no threshold has a guarantee, and the point estimate promises nothing.',
    ];
  return [
    heading,
    `    ${guaranteeFigures(found)}`,
    `    ${guaranteeSentence(found)}`,
    `  Recommended min_confidence: ${found.threshold.toFixed(2)}, the threshold with a guarantee ` +
      '(not the point estimate, which is optimistic on the answers it was measured on).',
  ];
}

/** Per question, where its answers are enough to reject at all: a per-question threshold needs its own answers. */
function questionGuarantees(report: CalibrationReport): string[] {
  const options = { targetAccuracy: report.target_accuracy, risk: report.risk };
  const enough = report.questions.filter((q) => canReject(q.n, options));
  const tooFew = report.questions.length - enough.length;
  if (enough.length === 0) return [];
  return [
    '  A threshold with a guarantee per question (on its own held-out answers):',
    ...listed(
      enough,
      (q) =>
        `    ${JSON.stringify(q.question)}: ` +
        (q.guaranteed_threshold
          ? guaranteeFigures(q.guaranteed_threshold)
          : noGuarantee(q, report.target_accuracy, report.risk)),
      'questions',
    ),
    ...(tooFew ? [`    ${tooFew} questions have too few answers for a guarantee of their own`] : []),
  ];
}

function fitName(fit: Pick<AppliedFit, 'question' | 'option_count'>): string {
  return fit.question !== undefined ? JSON.stringify(fit.question) : `${fit.option_count}-option fit`;
}

function listed<T>(items: readonly T[], line: (item: T) => string, what: string): string[] {
  const lines = items.slice(0, LISTED).map(line);
  if (items.length > LISTED) lines.push(`  ... and ${items.length - LISTED} more ${what} (--json lists them all)`);
  return lines;
}

/** One group's figures; `ownFit` is false for the overall view, where each answer has its own temperature. */
function group(report: GroupReport, target: number, ownFit = true): string[] {
  const temperature = ownFit
    ? `temperature ${f(report.temperature)}${report.at_bound ? ' (at a bound)' : ''}`
    : 'temperature per answer';
  const lines = [
    `  n ${report.n}   accuracy ${f(report.accuracy)}${ci(report.accuracy_ci)}   ` +
      `AUROC ${f(report.auroc)}${ci(report.auroc_ci)} (after ${f(report.auroc_after)})`,
    `  ${temperature}   log loss ${f(report.log_loss_before)} -> ${f(report.log_loss_after)}   ` +
      `Brier ${f(report.brier_before)} -> ${f(report.brier_after)}`,
    `  held out: log loss ${f(report.log_loss_held_out)}   Brier ${f(report.brier_held_out)}`,
    `  ECE ${f(report.ece_before)}${ci(report.ece_before_ci)} -> ` +
      `${f(report.ece_after)}${ci(report.ece_after_ci)}   held out ${f(report.ece_held_out)}   ` +
      `noise floor at this n ${f(report.ece_noise_floor.mean)} (95%: ${f(report.ece_noise_floor.p95)})`,
    '  threshold  coverage  accuracy     n',
    ...report.thresholds.map(
      (row) =>
        `  ${f(row.threshold, 2).padStart(9)}  ${percent(row.coverage).padStart(8)}  ` +
        `${f(row.accuracy).padStart(8)}  ${String(row.n).padStart(4)}`,
    ),
    report.recommended_threshold
      ? `  point estimate for ${percent(target)} accuracy on these answers: ` +
        `${f(report.recommended_threshold.threshold, 2)} (decides ${percent(report.recommended_threshold.coverage)}, ` +
        `accuracy ${f(report.recommended_threshold.accuracy)}; optimistic, no guarantee)`
      : `  no threshold reaches ${percent(target)} accuracy on these answers`,
  ];
  if (ownFit) lines.push(`  ${report.verdict}`);
  for (const caveat of report.caveats)
    lines.push(`  ~ ${caveat} (trusted all the same: it still helps on held-out answers)`);
  return lines;
}
