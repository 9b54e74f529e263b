import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { isRecord } from '../common/is-record';
import { readLinesSync } from '../common/line-reader';
import type { Env } from '../config/paths';
import { ROUTING_LIMITS } from './routing-limits';

/** Where Claude Code keeps its transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function defaultProjectsDir(env: Env): string {
  const configDir = env.CLAUDE_CONFIG_DIR?.split(',')[0] || path.join(env.HOME || homedir(), '.claude');
  return path.join(configDir, 'projects');
}

/**
 * Every transcript file under `dir` modified since `sinceMs` (subagent files included, compaction runs not).
 * Regular files only: a FIFO named `*.jsonl` would block its reader.
 */
export function transcriptFiles(dir: string, sinceMs: number): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const full = path.join(dir, name);
    const stat = statSync(full, { throwIfNoEntry: false });
    if (!stat) return [];
    if (stat.isDirectory()) return transcriptFiles(full, sinceMs);
    return stat.isFile() && name.endsWith('.jsonl') && !name.startsWith('agent-acompact-') && stat.mtimeMs >= sinceMs
      ? [full]
      : [];
  });
}

type Line = Record<string, unknown>;

/**
 * The JSON lines of a transcript, one at a time (transcripts run to 100s of MB): a line cut off at a crash is
 * skipped, as Claude Code's own readers do, and so is one over the line cap. Throws ENOTREG for a file that
 * is not a regular one (see readLinesSync).
 */
export function* readLines(file: string): Generator<Line> {
  for (const text of readLinesSync(file, { maxLineBytes: ROUTING_LIMITS.transcriptLineBytes })) {
    if (!text.trim()) continue;
    try {
      const line = JSON.parse(text) as unknown;
      if (isRecord(line)) yield line;
    } catch {
      // skipped
    }
  }
}

export interface Spawn {
  toolUseId: string;
  sessionId: string;
  timestamp: string;
  description: string;
  /** The alias the orchestrator asked for; null = inherited. */
  model: string | null;
  subagentType: string | null;
  background: boolean;
  /** Spawned from inside a subagent. */
  nested: boolean;
  /** The model that actually ran, when the result says. */
  resolvedModel: string | null;
  result?: { isError: boolean; text: string; status: string | null; agentId: string | null };
  notification?: { status: string; summary: string };
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((block) => (isRecord(block) && typeof block.text === 'string' ? block.text : '')).join('\n')
      : '';

const tag = (text: string, name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(text)?.[1]?.trim();

/**
 * The Agent/Task spawns of a set of transcript lines, each with its tool result and, for background runs,
 * its last task notification (linked by tool-use id, else by agent id).
 */
export function readSpawns(lines: Iterable<Line>): Spawn[] {
  const spawns = new Map<string, Spawn>();
  const byAgentId = new Map<string, Spawn>();
  for (const line of lines) {
    const message = isRecord(line.message) ? line.message : undefined;
    if (!message) continue;
    const content = message.content;
    if (line.type === 'assistant' && Array.isArray(content)) {
      for (const block of content) {
        if (
          !isRecord(block) ||
          block.type !== 'tool_use' ||
          (block.name !== 'Agent' && block.name !== 'Task') ||
          typeof block.id !== 'string'
        )
          continue;
        const input = isRecord(block.input) ? block.input : {};
        spawns.set(block.id, {
          toolUseId: block.id,
          sessionId: String(line.sessionId ?? ''),
          timestamp: String(line.timestamp ?? ''),
          description: typeof input.description === 'string' ? input.description : '',
          model: typeof input.model === 'string' ? input.model : null,
          subagentType: typeof input.subagent_type === 'string' ? input.subagent_type : null,
          background: input.run_in_background === true,
          nested: line.isSidechain === true || typeof line.agentId === 'string',
          resolvedModel: null,
        });
      }
    }
    if (line.type === 'user' && Array.isArray(content)) {
      for (const block of content) {
        if (!isRecord(block) || block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
        const spawn = spawns.get(block.tool_use_id);
        if (!spawn) continue;
        const structured = isRecord(line.toolUseResult) ? line.toolUseResult : undefined;
        const agentId = typeof structured?.agentId === 'string' ? structured.agentId : null;
        spawn.result = {
          isError: block.is_error === true,
          text: textOf(block.content),
          status: typeof structured?.status === 'string' ? structured.status : null,
          agentId,
        };
        if (typeof structured?.resolvedModel === 'string') spawn.resolvedModel = structured.resolvedModel;
        if (agentId) byAgentId.set(agentId, spawn);
      }
    }
    if (line.type === 'user' && typeof content === 'string' && content.trimStart().startsWith('<task-notification>')) {
      const spawn = spawns.get(tag(content, 'tool-use-id') ?? '') ?? byAgentId.get(tag(content, 'task-id') ?? '');
      if (spawn) spawn.notification = { status: tag(content, 'status') ?? '', summary: tag(content, 'summary') ?? '' };
    }
  }
  return [...spawns.values()];
}
