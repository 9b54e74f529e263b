import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import type { Env } from '../config/paths';

export interface Skill {
  name: string;
  description: string;
}

/** The `name:` and `description:` of a SKILL.md's front matter. */
function frontMatter(text: string): Partial<Skill> {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const field = (key: string) => new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(block)?.[1]?.trim().replace(/^["']|["']$/g, '');
  return { name: field('name'), description: field('description') };
}

/**
 * The skills Claude Code can load for this session: the user's (`~/.claude/skills/<name>/SKILL.md`) and the
 * project's (`<cwd>/.claude/skills/...`), the project's winning on a name clash.
 */
export function listSkills(cwd: string | undefined, env: Env): Skill[] {
  const roots = [path.join(env.CLAUDE_CONFIG_DIR?.split(',')[0] || path.join(env.HOME || homedir(), '.claude'), 'skills')];
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
        const meta = frontMatter(readFileSync(path.join(root, folder, 'SKILL.md'), 'utf8'));
        const name = meta.name || folder;
        skills.set(name, { name, description: meta.description ?? '' });
      } catch {
        // a folder without a SKILL.md is not a skill
      }
    }
  }
  return [...skills.values()];
}
