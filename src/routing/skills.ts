import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { readLinesSync } from '../common/line-reader';
import type { Env } from '../config/paths';
import { ROUTING_LIMITS } from './routing-limits';

export interface Skill {
  name: string;
  description: string;
}

/**
 * The `name:` and `description:` of a SKILL.md's front matter, read from the file's head only: the route
 * hook lists the skills before every prompt, and a skill's body can be long. A SKILL.md that is not a
 * regular file (a FIFO would block the hook) throws, like a missing one.
 */
function frontMatter(file: string): Partial<Skill> {
  const lines: string[] = [];
  for (const raw of readLinesSync(file, { maxLineBytes: ROUTING_LIMITS.skillLineBytes })) {
    const line = raw.replace(/\r$/, '');
    if (lines.length === 0 && line !== '---') return {};
    if (lines.length > 0 && line.startsWith('---')) return fields(lines.slice(1).join('\n'));
    if (lines.length > ROUTING_LIMITS.skillFrontMatterLines) return {};
    lines.push(line);
  }
  return {};
}

function fields(block: string): Partial<Skill> {
  const field = (key: string) =>
    new RegExp(`^${key}:\\s*(.+)$`, 'm')
      .exec(block)?.[1]
      ?.trim()
      .replace(/^["']|["']$/g, '');
  return { name: field('name'), description: field('description') };
}

/**
 * The skills Claude Code can load for this session: the user's (`~/.claude/skills/<name>/SKILL.md`) and the
 * project's (`<cwd>/.claude/skills/...`), the project's winning on a name clash.
 */
export function listSkills(cwd: string | undefined, env: Env): Skill[] {
  const roots = [
    path.join(env.CLAUDE_CONFIG_DIR?.split(',')[0] || path.join(env.HOME || homedir(), '.claude'), 'skills'),
  ];
  if (cwd) roots.push(path.join(cwd, '.claude', 'skills'));
  const skills = new Map<string, Skill>();
  for (const root of roots) {
    let names: string[] = [];
    try {
      names = readdirSync(root);
    } catch {
      continue;
    }
    for (const folder of names) {
      try {
        const meta = frontMatter(path.join(root, folder, 'SKILL.md'));
        const name = meta.name || folder;
        skills.set(name, { name, description: meta.description ?? '' });
      } catch {
        // a folder without a SKILL.md is not a skill
      }
    }
  }
  return [...skills.values()];
}
