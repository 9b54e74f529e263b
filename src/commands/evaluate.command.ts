import { Inject } from '@nestjs/common';
import { SingleBar } from 'cli-progress';
import { Command, CommandRunner, Option } from 'nest-commander';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { engineUnderTest } from '../routing/engine-under-test';
import { EvaluationReport, evaluateRouting } from '../routing/evaluate';
import { evaluateLive, LiveReport } from '../routing/evaluate-live';
import { fraction, openFraction, wholeNumber } from './option-parsers';
import { DEFAULT_RISK } from '../calibration/guaranteed-threshold';
import { guaranteeFigures, noGuarantee, share } from './calibrate/guarantee.view';
import { OutputWriter } from './output.writer';

interface EvaluateFlags {
  live?: boolean;
  provider?: string;
  log?: string;
  minFeatureAccuracy: number;
  minSafety: number;
  minFailures: number;
  risk: number;
  json?: boolean;
}

/** Progress lines a second at most when stderr is not a terminal (a terminal gets one line redrawn). */
const PROGRESS_EVERY_MS = 1000;

const f2 = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));

@Command({
  name: 'evaluate',
  description:
    'is an engine ready to route? READY or NOT READY, from the routing log (read-only), ' +
    'or with --live by asking the engine the labelled prompts again',
})
export class EvaluateCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: EvaluateFlags): Promise<void> {
    const log = flags.log ?? this.config.routing.log_file;
    const bars = {
      threshold: this.config.routing.min_confidence,
      minFeatureAccuracy: flags.minFeatureAccuracy,
      minSafety: flags.minSafety,
      minFailures: flags.minFailures,
      risk: flags.risk,
    };
    let result: EvaluationReport | LiveReport;
    if (flags.live) {
      const provider = flags.provider ?? this.config.gateway.provider;
      const { engine, whyNotReady } = engineUnderTest(this.config, this.env, provider);
      const problem = await whyNotReady();
      if (problem) return this.stop(problem);
      const bar = new SingleBar({
        format: `evaluate --live: {value}/{total} prompts asked of ${provider}`,
        stream: process.stderr,
        hideCursor: true,
        noTTYOutput: true,
        notTTYSchedule: PROGRESS_EVERY_MS,
      });
      const live = await evaluateLive(log, bars, engine, {
        onStart: (total) => bar.start(total, 0),
        onProgress: (done) => bar.update(done),
      }).finally(() => bar.stop());
      if (live.engine.asked > 0 && live.engine.answered === 0) {
        this.output.err(
          `system1 evaluate: ${provider} answered none of the ${live.engine.asked} prompts asked ` +
            `(the last: ${live.engine.last_error}); is it running?`,
        );
      }
      result = live;
    } else {
      result = evaluateRouting(log, { ...bars, provider: flags.provider });
    }
    if (flags.json) this.output.json(result);
    else this.output.out(render(result));
    if (result.verdict !== 'READY') this.output.fail(1);
  }

  private stop(message: string): void {
    this.output.err(`system1 evaluate: ${message}`);
    this.output.fail(1);
  }

  @Option({
    flags: '--live',
    description:
      'ask the engine the features of every labelled prompt in the log again, rather than read its old answers',
  })
  parseLive(): boolean {
    return true;
  }

  @Option({
    flags: '--provider <name>',
    description:
      'with --live, the engine to ask (default: the configured primary); else only prompts this provider answered',
  })
  parseProvider(value: string): string {
    return value;
  }

  @Option({ flags: '--log <path>', description: 'the routing log (default: [routing] log_file)' })
  parseLog(value: string): string {
    return value;
  }

  @Option({ flags: '--min-feature-accuracy <fraction>', defaultValue: 0.85, description: 'bar per feature' })
  parseAccuracy(value: string): number {
    return fraction(value);
  }

  @Option({ flags: '--min-safety <fraction>', defaultValue: 0.95, description: "bar for the rule's safety" })
  parseSafety(value: string): number {
    return fraction(value);
  }

  @Option({ flags: '--min-failures <n>', defaultValue: 30, description: 'failed spawns needed' })
  parseFailures(value: string): number {
    return wholeNumber(value);
  }

  @Option({
    flags: '--risk <fraction>',
    defaultValue: DEFAULT_RISK,
    description: "the chance each feature's threshold with a guarantee may miss the feature accuracy bar",
  })
  parseRisk(value: string): number {
    return openFraction(value);
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}

/** The human report: where the answers came from, the figures, the verdict and its reasons. */
function render(result: EvaluationReport | LiveReport): string[] {
  const source =
    'engine' in result
      ? `evaluate (live): asked ${result.provider}${result.engine.model ? ` (${result.engine.model})` : ''} ` +
        `the four features of ${result.engine.prompts} prompts from ${result.log}: ` +
        `${result.engine.answered} answered, ${result.engine.failed} failed${errorList(result.engine.errors)}` +
        `${result.engine.not_asked ? `, ${result.engine.not_asked} not asked` : ''}` +
        (result.engine.without_prompt_text
          ? `, ${result.engine.without_prompt_text} without prompt text in the log`
          : '')
      : `evaluate (from the log): ${result.log}${result.provider ? ` (provider ${result.provider})` : ''}: ` +
        `${result.prompts_routed} prompts routed, ${result.prompts_labelled} labelled`;
  const weak =
    result.weak_part === 'rule'
      ? ': the rule is the weak part'
      : result.weak_part === 'engine'
        ? ': the engine is the weak part'
        : '';
  return [
    source,
    ...Object.entries(result.features).map(
      ([feature, s]) =>
        `  ${feature.padEnd(10)} n ${s.n}  accuracy ${f2(s.accuracy)} at ${result.threshold} ` +
        `(covers ${Math.round(s.coverage * 100)}%)  AUROC ${f2(s.auroc)}`,
    ),
    ...guaranteeLines(result),
    `  rule safety on ${result.failures} failed spawns: ${f2(result.safety_with_engine)} with the engine's answers, ` +
      `${f2(result.safety_with_labels)} with the teacher's labels${weak}`,
    `  a cheaper tier suggested for ${result.savings.cheaper_tier_suggested} of ` +
      `${result.savings.successful_spawns} successful spawns`,
    '',
    result.verdict,
    ...result.reasons.map((reason) => `  - ${reason}`),
  ];
}

/** Per feature, the threshold with a guarantee of the accuracy bar, and the features the configured one is below. */
function guaranteeLines(result: EvaluationReport | LiveReport): string[] {
  const { min_feature_accuracy: target, risk } = result.bars;
  const entries = Object.entries(result.guaranteed_thresholds);
  const below = entries.filter(
    ([, g]) => g.guaranteed_threshold === null || result.threshold < g.guaranteed_threshold.threshold,
  );
  return [
    `  a threshold with a guarantee of ${share(target)} accuracy, per feature (risk ${risk}):`,
    ...entries.map(
      ([feature, g]) =>
        `    ${feature.padEnd(10)} ${g.guaranteed_threshold ? guaranteeFigures(g.guaranteed_threshold) : noGuarantee(g, target, risk)}`,
    ),
    below.length
      ? `  [routing] min_confidence ${result.threshold} has no guarantee for ${below.map(([feature]) => feature).join(', ')}`
      : `  [routing] min_confidence ${result.threshold} is at or above every feature's threshold with a guarantee`,
  ];
}

function errorList(errors: Record<string, number>): string {
  const entries = Object.entries(errors);
  return entries.length ? ` (${entries.map(([code, n]) => `${code} ${n}`).join(', ')})` : '';
}
