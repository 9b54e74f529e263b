import { Command, CommandRunner } from 'nest-commander';
import { routeHook, spawnHook } from './claude-hooks';

// main.ts runs the hooks from their lean bundle when called as Claude Code calls them (no other argument);
// these entries list them in `system1 --help` and run the same code when called any other way.

@Command({
  name: 'route-hook',
  description:
    'the Claude Code UserPromptSubmit hook: reads the hook JSON on stdin, ' +
    'prints a model hint or nothing, always exits 0',
})
export class RouteHookCommand extends CommandRunner {
  async run(): Promise<void> {
    await routeHook({ codeCache: 'unbundled' });
  }
}

@Command({
  name: 'spawn-hook',
  description:
    'the Claude Code PreToolUse hook on the Agent tool: records each subagent spawn in the routing log, prints nothing',
})
export class SpawnHookCommand extends CommandRunner {
  async run(): Promise<void> {
    await spawnHook({ codeCache: 'unbundled' });
  }
}
