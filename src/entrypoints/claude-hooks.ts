import 'reflect-metadata';
import { gatewayLogger } from '../logging/gateway.logger';
import { createHookServices, type HookServices } from './hook-services.factory';
import { LeanStart, logCodeCache } from './lean-start';

/** The hook's whole budget, start-up included: Claude Code waits on it before every prompt. */
const HOOK_BUDGET_MS = 1500;

/**
 * The Claude Code hooks (`route-hook`: UserPromptSubmit; `spawn-hook`: PreToolUse on the Agent tool). Each
 * reads the hook JSON on stdin, prints a hint or nothing, and always exits 0 within its budget: its own
 * errors go to the log, never to the user.
 */
function claudeHook(handle: (services: HookServices, input: unknown, budgetMs: number) => Promise<string | null>) {
  return async (start: LeanStart): Promise<void> => {
    const started = Date.now() - process.uptime() * 1000;
    const hardStop = setTimeout(() => process.exit(0), Math.max(0, HOOK_BUDGET_MS - (Date.now() - started)));
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      let input: unknown;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return;
      }
      const services = createHookServices();
      logCodeCache(start);
      // What is left of the budget, less a margin to print and exit.
      const output = await handle(services, input, HOOK_BUDGET_MS - (Date.now() - started) - 100);
      if (output) process.stdout.write(`${output}\n`);
    } catch (error) {
      gatewayLogger.error(`hook: ${error instanceof Error ? error.message : String(error)}`, 'Hook');
    } finally {
      clearTimeout(hardStop);
      // Open sockets to a hung engine must not keep Claude Code waiting.
      setImmediate(() => process.exit(0));
    }
  };
}

export const routeHook = claudeHook(async (services, input, budgetMs) => (await services.routeHook.handle(input, budgetMs)).output);

export const spawnHook = claudeHook(async (services, input) => {
  services.spawnRecorder.record(input);
  return null;
});

export { reportStartFailure } from './lean-start';
