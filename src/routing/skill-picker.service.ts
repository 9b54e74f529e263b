import { Inject, Injectable } from '@nestjs/common';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { DecisionService } from '../decisions/pipeline/decision.service';
import { DecisionErrorCode } from '../decisions/errors/decision-error';
import { selfDescribed } from '../decisions/pipeline/question-text';
import { listSkills } from './skills';

export const SKILL_QUESTION = 'Which skill fits this task best?';

export type SkillPick = { skill: string; confidence: number; provider: string } | { dormant: string };

/**
 * Names the skill that fits a prompt, through the one pipeline on the primary provider alone. Dormant,
 * with no engine call, unless that provider's `max_options` holds the whole skill list (a typical setup has
 * about 100 skills, Laya takes 20).
 */
@Injectable()
export class SkillPicker {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly decisions: DecisionService,
  ) {}

  async pick(prompt: string, cwd: string | undefined, budgetMs: number, requestId: string): Promise<SkillPick> {
    const skills = listSkills(cwd, this.env);
    if (skills.length < 2) return { dormant: `${skills.length} skills found` };
    const [primary] = this.decisions.chainFor(undefined);
    const capabilities = this.decisions.resolveCapabilities(primary);
    if (!capabilities) return { dormant: 'no provider' };
    const limit = capabilities.questions?.max_options ?? capabilities.max_options ?? Infinity;
    if (skills.length > limit)
      return { dormant: `${skills.length} skills, more than ${primary.provider}'s ${limit} options` };
    const criteria = selfDescribed(skills.map((skill) => skill.name));
    const state = { prompt, skills: Object.fromEntries(skills.map((s) => [s.name, s.description])) };
    const outcome = await this.decisions.decide(
      {
        state,
        questions: { skill: { type: 'choice', instructions: SKILL_QUESTION, criteria } },
        model: primary,
        requestId,
      },
      { budgetMs, minConfidence: this.config.skills.min_confidence, retryBadAnswers: true, surface: 'skill_picker' },
    );
    const result = outcome.answers.skill;
    if (result.status === 'error')
      return {
        dormant:
          result.error.code === DecisionErrorCode.Abstained
            ? 'the engine abstained'
            : `the engine failed: ${result.error.message}`,
      };
    if (result.answer.type !== 'choice') return { dormant: 'the engine answered another question type' };
    if (result.belowThreshold)
      return { dormant: `confidence ${result.answer.confidence} below ${this.config.skills.min_confidence}` };
    return { skill: result.answer.value, confidence: result.answer.confidence, provider: primary.provider };
  }
}
