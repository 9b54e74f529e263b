import { Injectable, Module } from '@nestjs/common';
import { text } from '../../src/config/setting-types';
import {
  AttemptContext,
  HealthProbeResult,
  ProviderDefinition,
  System1Provider,
} from '../../src/decisions/registry/provider.interface';
import { System1ProviderDefinition } from '../../src/decisions/registry/providers.token';
import { MalformedResponseError } from '../../src/decisions/errors/decision-error';
import { asChoice, ChoiceAsk, ChoiceState, evaluateByPicks } from '../../src/providers/choice/choice-provider';

/** What a scripted engine sees: the choices of one attempt, as a choice-only engine gets them. */
export interface DecisionBatch {
  state: ChoiceState;
  questions: ChoiceAsk[];
}

export type Script = (
  batch: DecisionBatch,
  context: AttemptContext,
  instance: string,
) => Promise<Record<string, unknown>>;

/**
 * A test engine whose behaviour each test scripts. Several instances can run under other names with
 * `[providers.<name>] type = "scripted"`; `label` tells them apart inside the script.
 */
@Injectable()
@System1ProviderDefinition()
export class ScriptedEngine implements ProviderDefinition {
  static script: Script = async () => ({});
  static health: (instance: string, context: AttemptContext) => Promise<HealthProbeResult> = async () => ({
    ok: true,
    detail: 'scripted',
  });

  readonly name = 'scripted';
  readonly description = 'test engine driven by the test';
  readonly settings = { label: { type: text(), default: 'scripted', describe: 'instance label' } };

  create(settings: Readonly<Record<string, unknown>>): System1Provider {
    const label = settings.label as string;
    return {
      name: 'scripted',
      capabilities: () => ({ batch: false, probabilities: true }),
      // The script answers the whole batch once; each pick reads its question's answer from it.
      evaluate: (request, context) => {
        let answers: Promise<Record<string, unknown>> | undefined;
        return evaluateByPicks(request, context, (_ask, state) => {
          answers ??= ScriptedEngine.script(
            { state, questions: Object.entries(request.questions).map(([id, q]) => asChoice(id, q)) },
            context,
            label,
          );
          return answers.then((all) => {
            if (typeof all !== 'object' || all === null || Array.isArray(all))
              throw new MalformedResponseError('the provider returned no answers object');
            return all[_ask.id];
          });
        });
      },
      health: (context) => ScriptedEngine.health(label, context),
    };
  }
}

@Module({ providers: [ScriptedEngine] })
export class ScriptedEngineModule {}

/** A well-formed answer for the first (only) question. */
export function answer(batch: DecisionBatch, fields: Record<string, unknown>): Record<string, unknown> {
  return { [batch.questions[0].id]: fields };
}
