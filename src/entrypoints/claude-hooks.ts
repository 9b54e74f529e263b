import 'reflect-metadata';
import { formatBytes } from '../common/byte-count';
import { gatewayLogger } from '../logging/gateway.logger';
import { ROUTING_LIMITS } from '../routing/routing-limits';
import { readHookInput } from './hook-input';
import { createHookServices, type HookServices } from './hook-services.factory';
import { type LeanStart, logCodeCache } from './lean-start';

/** The hook's budget until the config is read (`[routing] budget_ms`, whose default this is). */
const START_BUDGET_MS = 1500;

/**
 * The Claude Code hooks (`route-hook`: UserPromptSubmit; `spawn-hook`: PreToolUse on the Agent tool). Each
 * reads the hook JSON on stdin, prints a hint or nothing, and always exits 0 within its budget: its own
 * errors go to the log, never to the user.
 */
function claudeHook(
  overCap: string,
  handle: (services: HookServices, input: unknown, budgetMs: number) => Promise<string | null>,
) {
  return async (start: LeanStart): Promise<void> => {
    const started = Date.now() - process.uptime() * 1000;
    const stopAt = (budgetMs: number) =>
      setTimeout(() => process.exit(0), Math.max(0, budgetMs - (Date.now() - started)));
    let hardStop = stopAt(START_BUDGET_MS);
    try {
      const input = await readHookInput(process.stdin, ROUTING_LIMITS.hookInputBytes);
      if (input.kind === 'not-json') return;
      const services = createHookServices();
      const budgetMs = services.config.routing.budget_ms;
      clearTimeout(hardStop);
      hardStop = stopAt(budgetMs);
      logCodeCache(start);
      if (input.kind === 'over-cap') {
        // The "no decision" answer (nothing on stdout), and why where the user's logs go.
        gatewayLogger.warn(
          `the hook input is over the ${formatBytes(ROUTING_LIMITS.hookInputBytes)} cap: ${overCap}`,
          'Hook',
        );
        return;
      }
      // What is left of the budget, less a margin to print and exit.
      const output = await handle(services, input.value, budgetMs - (Date.now() - started) - 100);
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

export const routeHook = claudeHook(
  'no routing for this prompt',
  async (services, input, budgetMs) => (await services.routeHook.handle(input, budgetMs)).output,
);

export const spawnHook = claudeHook('this spawn is not recorded', async (services, input) => {
  services.spawnRecorder.record(input);
  return null;
});

export { reportStartFailure } from './lean-start';
