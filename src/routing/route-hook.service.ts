import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { isRecord } from '../common/is-record';
import { readFailureReason } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { ConfigStatus } from '../decisions/pipeline/config-status.service';
import { PauseState } from '../decisions/pipeline/pause-state.service';
import { FeatureReader } from './feature-reader.service';
import { Feature } from './routing-features';
import { appendLogLine, insideLogDirs } from './routing-log';
import { routeTier, Tier } from './routing-rule';
import { SkillPicker } from './skill-picker.service';

/** Prompts shorter than this are usually follow-ups whose size depends on the conversation. */
const MIN_WORDS = 10;
/** Below this much budget left, the skill picker is skipped rather than cut off. */
const MIN_PICKER_MS = 200;

const TIER_WORDS: Record<Tier, string> = {
  opus: 'design, planning or review work',
  haiku: 'a read-only lookup or check',
  sonnet: 'everyday implementation work',
};

export interface HookOutcome {
  /** What to print on stdout, or null to stay silent. */
  output: string | null;
  /** Why it stayed silent, for the log. */
  silentBecause?: string;
}

/**
 * Claude Code's UserPromptSubmit hook: reads the features of a prompt, turns them into a tier with the
 * rule, logs the result where the user opted in, and gives Claude a one-line hint. Advisory only: it never
 * blocks or rewrites a prompt, and stays silent whenever it has nothing sure to say.
 */
@Injectable()
export class RouteHookService {
  private readonly logger = new Logger('RouteHook');

  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly configStatus: ConfigStatus,
    private readonly pause: PauseState,
    private readonly reader: FeatureReader,
    private readonly picker: SkillPicker,
  ) {}

  async handle(input: unknown, budgetMs: number): Promise<HookOutcome> {
    const deadline = Date.now() + budgetMs;
    const silent = (why: string): HookOutcome => {
      this.logger.debug(`silent: ${why}`);
      return { output: null, silentBecause: why };
    };
    if (!isRecord(input) || typeof input.prompt !== 'string') return silent('no prompt in the hook input');
    const prompt = input.prompt;
    if (!this.config.routing.enabled && !this.config.skills.enabled)
      return silent('routing and the skill picker are off');
    if (this.configStatus.errors().length > 0) return silent('the config is broken');
    if (this.pause.isPaused()) return silent('System-1 is paused');
    const text = prompt.trimStart();
    if (text.startsWith('/')) return silent('a slash command');
    if (input.source === 'system' || text.startsWith('<task-notification>')) return silent('a subagent hand-back');
    if (text.split(/\s+/).filter(Boolean).length < MIN_WORDS) return silent(`fewer than ${MIN_WORDS} words`);

    const requestId = typeof input.prompt_id === 'string' ? input.prompt_id : randomUUID();
    const lines: string[] = [];
    if (this.config.routing.enabled) {
      const hint = await this.route(input, prompt, requestId, deadline - Date.now());
      if (hint) lines.push(hint);
    }
    // The picker gets what routing left of the budget, and is skipped when routing used it up.
    const left = deadline - Date.now();
    if (this.config.skills.enabled && left > MIN_PICKER_MS) {
      const skillLine = await this.pickSkill(input, prompt, requestId, left);
      if (skillLine) lines.push(skillLine);
    }
    if (lines.length === 0) return silent('nothing sure to say');
    return {
      output: JSON.stringify({
        hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: lines.join('\n') },
      }),
    };
  }

  /** The routing hint, or null (the engine failed or abstained, or hints are off). */
  private async route(
    input: Record<string, unknown>,
    prompt: string,
    requestId: string,
    budgetMs: number,
  ): Promise<string | null> {
    const reading = await this.reader.read(prompt, budgetMs, requestId);
    if (reading.kind === 'failed') {
      this.logger.warn(`[${requestId}] no routing: ${reading.detail}`);
      return null;
    }
    const answers = Object.fromEntries(Object.entries(reading.features).map(([k, v]) => [k, v.answer])) as Record<
      Feature,
      boolean
    >;
    const tier = routeTier(answers);
    const hinted = reading.confident && this.config.routing.hint;
    this.record(input, requestId, {
      source: 'routing',
      prompt,
      provider: reading.provider,
      features: reading.features,
      tier,
      hinted,
    });
    if (!hinted) return null;
    this.logger.log(`[${requestId}] hint: ${tier}`);
    return (
      `System-1 routing: this prompt reads as ${TIER_WORDS[tier]}; when you spawn subagents for it, ` +
      `pass model: "${tier}".`
    );
  }

  /** The skill line, or null; with `[skills] hint = false` the pick is only recorded. */
  private async pickSkill(
    input: Record<string, unknown>,
    prompt: string,
    requestId: string,
    budgetMs: number,
  ): Promise<string | null> {
    const cwd = typeof input.cwd === 'string' ? input.cwd : undefined;
    const pick = await this.picker.pick(prompt, cwd, budgetMs, requestId);
    if ('dormant' in pick) {
      this.logger.debug(`[${requestId}] skill picker: ${pick.dormant}`);
      return null;
    }
    this.record(input, requestId, {
      source: 'skill',
      prompt,
      provider: pick.provider,
      skill: pick.skill,
      confidence: pick.confidence,
      hinted: this.config.skills.hint,
    });
    return this.config.skills.hint ? `System-1 skills: the "${pick.skill}" skill fits this prompt.` : null;
  }

  private record(input: Record<string, unknown>, requestId: string, fields: Record<string, unknown>) {
    const cwd = typeof input.cwd === 'string' ? input.cwd : undefined;
    if (!insideLogDirs(cwd, this.config.routing.log_dirs)) return;
    try {
      appendLogLine(this.config.routing.log_file, {
        ts: new Date().toISOString(),
        session_id: input.session_id ?? null,
        prompt_id: requestId,
        cwd,
        ...fields,
      });
    } catch (error) {
      // A full or read-only disk must not cost the user their prompt: say so in the log, carry on.
      this.logger.warn(
        `[${requestId}] cannot write the routing log ${this.config.routing.log_file} (${readFailureReason(error)})`,
      );
    }
  }
}
