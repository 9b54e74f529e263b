/** The request contract's limits (spec: tools and schema), in one place for the DTO and messages. */
export const SCHEMA_VERSION = '1';
export const QUESTION_MAX_CHARS = 8000;
export const OPTIONS_MIN = 2;
export const OPTIONS_MAX = 256;
export const OPTION_MAX_CHARS = 500;
export const REQUEST_ID_MAX_CHARS = 128;
/** A model reference's provider and model names: longer than any real one, short enough to key caches and logs by. */
export const MODEL_REF_MAX_CHARS = 256;
/** Options a question without options is answered from. */
export const YES_NO_OPTIONS = ['yes', 'no'] as const;
/** The longest delay a Node.js timer keeps (about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;
