// An esbuild plugin for the lean bundles (scripts/bundle-lean.js): zod's failing `safeParse` result without a
// closure of its own.
//
// zod 4.6 builds a failing result's error on the first read of `error`, with a getter and a setter written in
// an object literal: each result gets its own two closures over the issues (which hold the parsed input) and
// the parse context. V8 keeps such an object's accessors in a pair it allocates in the old generation, so the
// young-generation collections see a pointer from the old generation to the closures and copy them, with
// everything they hold, until a full collection finds the pair dead. The MCP SDK tries the response schemas on
// every inbound request before the request schema (two failing parses each), so every request's message was
// promoted and came back as full collections: at 64 in flight a third of what the server promoted per scavenge
// (802 KB before, 524 KB after), 21 full collections per 23,000 decisions before, 16 after.
//
// The replacement keeps the same contract (an own enumerable `error` accessor, built once on the first read,
// replaceable, the issues released once built) with one shared pair of accessor functions and the state in a
// non-enumerable slot of the result itself: nothing in the old generation points at a result's own data.
'use strict';
const { readFile } = require('node:fs/promises');

/** zod's function as published (4.6.x), whitespace aside: the build fails when it changes, not silently. */
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
const ZOD_PARSE = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]parse\.c?js$/;

/** `source` with zod's failure replaced; throws, naming the file, when zod's function is not there as known. */
function withSharedFailureAccessors(source, file) {
  const start = source.indexOf('function failure(Err, issues, ctx) {');
  if (start < 0 || source.indexOf(PUBLISHED, start) !== start)
    throw new Error(
      `${file}: zod's failure() is not the one scripts/zod-failure-plugin.js replaces (zod updated?): ` +
        'check whether its failing result still holds closures, then update or drop the plugin',
    );
  return source.slice(0, start) + REPLACEMENT + source.slice(start + PUBLISHED.length);
}

const zodFailurePlugin = {
  name: 'zod-failure-without-closures',
  setup(build) {
    build.onLoad({ filter: ZOD_PARSE }, async (args) => ({
      contents: withSharedFailureAccessors(await readFile(args.path, 'utf8'), args.path),
      loader: 'js',
    }));
  },
};

module.exports = { zodFailurePlugin, withSharedFailureAccessors };
