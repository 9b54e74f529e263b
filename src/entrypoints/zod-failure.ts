/**
 * zod's failing `safeParse` result without a closure of its own, for the gateway's own processes: the lean
 * bundles get it at build time (scripts/zod-failure-plugin.js), the commands that run from dist/ (serve-http,
 * serve-openai, the CLI) when zod's parse module loads ({@link installZodFailureHook}). Never the library:
 * a process that imports `createSystem1` keeps its zod as it is.
 *
 * zod 4.6 builds a failing result's error on the first read of `error`, with a getter and a setter written in
 * an object literal: each result gets its own two closures over the issues (which hold the parsed input) and
 * the parse context. V8 keeps such an object's accessors in a pair it allocates in the old generation, so the
 * young-generation collections see a pointer from the old generation to the closures and copy them, with
 * everything they hold, until a full collection finds the pair dead. The MCP SDK tries the response schemas on
 * every inbound request before the request schema (two failing parses each), so every request's message was
 * promoted and came back as full collections: `mcp` at 64 in flight promoted 802 KB per scavenge before,
 * 524 KB after; serve-http at 16 in flight 1,099 KB before, 276 KB after.
 *
 * The replacement keeps the same contract (an own enumerable `error` accessor, built once on the first read,
 * replaceable, the issues released once built) with one shared pair of accessor functions and the state in a
 * non-enumerable slot of the result itself: nothing in the old generation points at a result's own data.
 */
import Module = require('node:module');

/** zod's function as published (4.6.x), whitespace aside. */
const PUBLISHED = `function failure(Err, issues, ctx) {
    let error;
    return {
        success: false,
        get error() {
            if (!error) {
                error = new Err(issues.map((iss) => util.finalizeIssue(iss, ctx, core.config())));
                // finalizeIssue drops \`input\`, so the built error holds nothing; keeping the raw issues past this point pins the parsed value for the life of the result
                issues = undefined;
                ctx = undefined;
            }
            return error;
        },
        set error(e) {
            error = e;
            // a replacement makes the getter's branch unreachable, so the captures have to go here too
            issues = undefined;
            ctx = undefined;
        },
    };
}`;

const REPLACEMENT = `const FAILURE_STATE = Symbol("zod.failure");
const FAILURE_ERROR = {
    get() {
        const state = this[FAILURE_STATE];
        if (!state.error) {
            state.error = new state.Err(state.issues.map((iss) => util.finalizeIssue(iss, state.ctx, core.config())));
            state.issues = undefined;
            state.ctx = undefined;
        }
        return state.error;
    },
    set(e) {
        const state = this[FAILURE_STATE];
        state.error = e;
        state.issues = undefined;
        state.ctx = undefined;
    },
    enumerable: true,
    configurable: true,
};
function failure(Err, issues, ctx) {
    const result = { success: false };
    Object.defineProperty(result, FAILURE_STATE, { value: { Err, issues, ctx, error: undefined } });
    return Object.defineProperty(result, "error", FAILURE_ERROR);
}`;

/** zod's parse module, in either of the forms it ships (CommonJS and ESM). */
export const ZOD_PARSE_FILE = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]parse\.c?js$/;

/** `source` with zod's failure replaced; throws, naming the file, when zod's function is not there as known. */
export function withSharedFailureAccessors(source: string, file: string): string {
  const start = source.indexOf('function failure(Err, issues, ctx) {');
  if (start < 0 || source.indexOf(PUBLISHED, start) !== start)
    throw new Error(
      `${file}: zod's failure() is not the one src/entrypoints/zod-failure.ts replaces (zod updated?): ` +
        'check whether its failing result still holds closures, then update or drop the replacement',
    );
  return source.slice(0, start) + REPLACEMENT + source.slice(start + PUBLISHED.length);
}

type Compile = (this: Module, content: string, filename: string) => unknown;

/**
 * From here on, zod's parse module loads with the replacement. A zod whose function is not the known one (the
 * build refuses it; a different install could still carry it) loads as it is: the process works, as before.
 */
export function installZodFailureHook(): void {
  const prototype = Module.prototype as unknown as { _compile: Compile };
  const compile = prototype._compile;
  prototype._compile = function (content: string, filename: string) {
    if (!ZOD_PARSE_FILE.test(filename)) return compile.call(this, content, filename);
    let replaced = content;
    try {
      replaced = withSharedFailureAccessors(content, filename);
    } catch {
      // zod as it is (see above)
    }
    return compile.call(this, replaced, filename);
  };
}
