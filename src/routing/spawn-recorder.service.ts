import { Inject, Injectable, Logger } from '@nestjs/common';
import { isRecord } from '../common/is-record';
import { readFailureReason } from '../common/regular-file';
import type { LoadedConfig } from '../config/config.loader';
import { system1Config } from '../config/system1.config';
import { appendLogLine, insideLogDirs } from './routing-log';

/** Claude Code's subagent tool: `Agent` since 2.1.63, `Task` before. */
const SPAWN_TOOLS = new Set(['Agent', 'Task']);

/**
 * Claude Code's PreToolUse hook on the Agent tool: records which model the orchestrator chose for a spawn,
 * next to the prompt's routing entry (same session and prompt id), so outcomes can later label it. It only
 * observes: it prints nothing and never changes the call.
 */
@Injectable()
export class SpawnRecorder {
  private readonly logger = new Logger('SpawnRecorder');

  constructor(@Inject(system1Config.KEY) private readonly config: LoadedConfig) {}

  record(input: unknown): boolean {
    if (!isRecord(input) || !SPAWN_TOOLS.has(String(input.tool_name)) || !isRecord(input.tool_input)) return false;
    if (!this.config.routing.enabled) return false;
    const cwd = typeof input.cwd === 'string' ? input.cwd : undefined;
    if (!insideLogDirs(cwd, this.config.routing.log_dirs)) return false;
    const tool = input.tool_input;
    try {
      appendLogLine(this.config.routing.log_file, {
        ts: new Date().toISOString(),
        source: 'spawn',
        session_id: input.session_id ?? null,
        prompt_id: input.prompt_id ?? null,
        tool_use_id: input.tool_use_id ?? null,
        // Absent means the subagent inherits the orchestrator's model.
        model: typeof tool.model === 'string' ? tool.model : null,
        subagent_type: typeof tool.subagent_type === 'string' ? tool.subagent_type : null,
        description: typeof tool.description === 'string' ? tool.description : null,
        nested: typeof input.agent_id === 'string',
      });
      return true;
    } catch (error) {
      this.logger.warn(`cannot write the routing log ${this.config.routing.log_file} (${readFailureReason(error)})`);
      return false;
    }
  }
}
