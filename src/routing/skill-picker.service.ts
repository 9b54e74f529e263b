import { Inject, Injectable } from '@nestjs/common';
import { CalibrationService } from '../calibration/calibration.service';
import type { LoadedConfig } from '../config/config.loader';
import type { Env } from '../config/paths';
import { PROCESS_ENV, system1Config } from '../config/system1.config';
import { askQuestion } from '../decisions/attempt.runner';
import { ProviderRegistry } from '../decisions/provider-registry.service';
import { listSkills } from './skills';

export const SKILL_QUESTION = 'Which skill fits this task best?';

export type SkillPick = { skill: string; confidence: number; provider: string } | { dormant: string };

/**
 * Names the skill that fits a prompt. Dormant, with no engine call, unless the primary provider's
 * `max_options` holds the whole skill list (a typical setup has about 100 skills, Laya takes 20).
 */
@Injectable()
export class SkillPicker {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    @Inject(PROCESS_ENV) private readonly env: Env,
    private readonly registry: ProviderRegistry,
    private readonly calibration: CalibrationService,
  ) {}

  async pick(prompt: string, cwd: string | undefined, budgetMs: number, requestId: string): Promise<SkillPick> {
    const skills = listSkills(cwd, this.env);
    if (skills.length < 2) return { dormant: `${skills.length} skills found` };
    const [primary] = this.registry.chain();
    const provider = primary?.provider;
    if (!provider) return { dormant: 'no provider' };
    const limit = provider.capabilities().max_options ?? Infinity;
    if (skills.length > limit) return { dormant: `${skills.length} skills, more than ${primary.name}'s ${limit} options` };
    const question = { id: 'skill', text: SKILL_QUESTION, options: skills.map((s) => s.name), yesNo: false };
    const state = { prompt, skills: Object.fromEntries(skills.map((s) => [s.name, s.description])) };
    const answer = await askQuestion(provider, { state, questions: [question] }, question, Math.min(budgetMs, this.config.gateway.timeout_s * 1000), requestId);
    if (answer.kind !== 'decision') return { dormant: answer.kind === 'failed' ? `the engine failed: ${answer.detail}` : 'the engine abstained' };
    const scaled = this.calibration.apply(provider.name, provider.capabilities().model, question, answer);
    if (scaled.confidence < this.config.skills.min_confidence) return { dormant: `confidence ${scaled.confidence} below ${this.config.skills.min_confidence}` };
    return { skill: answer.decision, confidence: scaled.confidence, provider: primary.name };
  }
}
