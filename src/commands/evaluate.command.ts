import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option } from 'nest-commander';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { evaluateRouting } from '../routing/evaluate';
import { fraction, wholeNumber } from './option-parsers';
import { OutputWriter } from './output.writer';

interface EvaluateFlags {
  provider?: string;
  log?: string;
  minFeatureAccuracy: number;
  minSafety: number;
  minFailures: number;
  json?: boolean;
}

const f2 = (value: number | null) => (value === null ? 'n/a' : value.toFixed(2));

@Command({ name: 'evaluate', description: 'read-only: is an engine ready to route? READY or NOT READY, from the routing log' })
export class EvaluateCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run(_args: string[], flags: EvaluateFlags): Promise<void> {
    const result = evaluateRouting(flags.log ?? this.config.routing.log_file, {
      provider: flags.provider,
      threshold: this.config.routing.min_confidence,
      minFeatureAccuracy: flags.minFeatureAccuracy,
      minSafety: flags.minSafety,
      minFailures: flags.minFailures,
    });
    if (flags.json) this.output.json(result);
    else {
      this.output.out(
        [
          `evaluate: ${result.log}${result.provider ? ` (provider ${result.provider})` : ''}: ${result.prompts_routed} prompts routed, ${result.prompts_labelled} labelled`,
          ...Object.entries(result.features).map(
            ([feature, s]) => `  ${feature.padEnd(10)} n ${s.n}  accuracy ${f2(s.accuracy)} at ${result.threshold} (covers ${Math.round(s.coverage * 100)}%)  AUROC ${f2(s.auroc)}`,
          ),
          `  rule safety on ${result.failures} failed spawns: ${f2(result.safety_with_engine)} with the engine, ${f2(result.safety_with_labels)} with the labels`,
          `  a cheaper tier suggested for ${result.savings.cheaper_tier_suggested} of ${result.savings.successful_spawns} successful spawns`,
          '',
          result.verdict,
          ...result.reasons.map((reason) => `  - ${reason}`),
        ].join('\n'),
      );
    }
    if (result.verdict !== 'READY') this.output.fail(1);
  }

  @Option({ flags: '--provider <name>', description: 'only prompts this provider answered' })
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

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }
}
