/** The request contract's limits (spec: tools and schema), in one place for the DTO and messages. */
export const SCHEMA_VERSION = '1';
export const QUESTION_MAX_CHARS = 8000;
export const OPTIONS_MIN = 2;
export const OPTIONS_MAX = 256;
export const OPTION_MAX_CHARS = 500;
export const REQUEST_ID_MAX_CHARS = 128;
/**
 * Typed questions (`system1_ask`, the library) are capped at the boundary, so one call cannot hold the event
 * loop or fan out without end (an engine without batches is called once per question). No engine takes
 * more: 64 questions is Laya's and Cloudflare's most; choices take at most 255 candidates on every System
 * One engine, 256 is `OPTIONS_MAX`; a score wider than an engine's own is asked as a choice among its
 * levels, so it may have as many levels as a choice has candidates.
 */
export const QUESTIONS_MAX = 64;
export const CANDIDATES_MAX = 256;
export const LEVELS_MAX = 256;
/** The request limits above as `system1_capabilities` names them. */
export const REQUEST_LIMITS = {
  question_max_chars: QUESTION_MAX_CHARS,
  options_max: OPTIONS_MAX,
  option_max_chars: OPTION_MAX_CHARS,
  request_id_max_chars: REQUEST_ID_MAX_CHARS,
  questions_max: QUESTIONS_MAX,
  candidates_max: CANDIDATES_MAX,
  levels_max: LEVELS_MAX,
} as const;
/** A model reference's provider and model names: longer than any real one, short enough to key caches and logs by. */
export const MODEL_REF_MAX_CHARS = 256;
/** Options a question without options is answered from. */
export const YES_NO_OPTIONS = ['yes', 'no'] as const;
/** The longest delay a Node.js timer keeps (about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;
