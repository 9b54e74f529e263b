import * as path from 'node:path';
import { isRecord } from '../../common/is-record';
import { FILE_CAPS, readRegularFileSync } from '../../common/regular-file';
import { type Env, homeOf } from '../../config/paths';

/** The server name the README's `claude mcp add` registers. */
export const SERVER_NAME = 'system1';

/** One registration of the server in Claude Code's config, as a client starts it. */
export interface Registration {
  scope: 'user' | 'local' | 'project';
  file: string;
  command: string[];
  env: Record<string, string>;
}

/** What Claude Code's config files say: the files that exist, and the registration of `system1` in them. */
export interface RegistrationLookup {
  /** The config files that exist (none: Claude Code is not set up here, so nothing is checked). */
  present: string[];
  found?: Registration;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readRegularFileSync(file, FILE_CAPS.data));
    return isRecord(parsed) ? parsed : {};
  } catch (error) {
    // a file that is there but not JSON still counts as present: Claude Code would read nothing from it either
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : {};
  }
}

/** The `system1` entry of an `mcpServers` table, when it is one a client can start (a stdio command). */
function entryOf(servers: unknown): Omit<Registration, 'scope' | 'file'> | undefined {
  const entry = isRecord(servers) ? servers[SERVER_NAME] : undefined;
  if (!isRecord(entry) || typeof entry.command !== 'string') return undefined;
  const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === 'string') : [];
  const env = isRecord(entry.env)
    ? Object.fromEntries(
        Object.entries(entry.env).filter((pair): pair is [string, string] => typeof pair[1] === 'string'),
      )
    : {};
  return { command: [entry.command, ...args], env };
}

/**
 * Where Claude Code keeps MCP servers: `~/.claude.json` (user scope at its top, local scope under `projects`,
 * keyed by the project's folder; `CLAUDE_CONFIG_DIR` moves it) and the project's `.mcp.json`. Claude Code
 * prefers local over project over user, and so does this.
 */
export function findRegistration(env: Env, cwd: string): RegistrationLookup {
  const userFile = path.join(env.CLAUDE_CONFIG_DIR ?? homeOf(env), '.claude.json');
  const projectFile = path.join(cwd, '.mcp.json');
  const user = readJson(userFile);
  const project = readJson(projectFile);
  const present = [user && userFile, project && projectFile].filter((file): file is string => Boolean(file));
  const projects = user && isRecord(user.projects) ? user.projects : {};
  const local = isRecord(projects[cwd]) ? entryOf(projects[cwd].mcpServers) : undefined;
  const shared = project && entryOf(project.mcpServers);
  const mine = user && entryOf(user.mcpServers);
  const found =
    (local && { scope: 'local' as const, file: userFile, ...local }) ??
    (shared && { scope: 'project' as const, file: projectFile, ...shared }) ??
    (mine && { scope: 'user' as const, file: userFile, ...mine });
  return found ? { present, found } : { present };
}
