import type { ChoiceAsk } from '../choice/choice-provider';

/** The API version every call pins (wire-contracts 3.1); a newer one may change the reply's shape. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The one tool the model must call; its input is the whole answer. */
export const CHOOSE_TOOL = 'choose';

/** The most names the model ranks: the best is the decision, the rest explain it in the rationale. */
export const RANKING_MAX = 3;

/** The headers the Messages and Models APIs need: the key goes nowhere else. */
export function anthropicHeaders(apiKey: string): Record<string, string> {
  return { 'x-api-key': apiKey, 'anthropic-version': ANTHROPIC_VERSION };
}

export interface MessagesRequestSettings {
  model: string;
  max_tokens: number;
}

/**
 * The `POST /v1/messages` body for one question (wire-contracts 3.1): temperature 0, the options in a
 * cached system block, and one forced tool call whose enum holds the exact option names, so the model can
 * only answer with an option. No `thinking`: the API refuses it together with a forced tool.
 */
export function messagesRequest(
  question: ChoiceAsk,
  state: Record<string, unknown> | undefined,
  settings: MessagesRequestSettings,
) {
  return {
    model: settings.model,
    max_tokens: settings.max_tokens,
    temperature: 0,
    system: [
      {
        type: 'text',
        text:
          'You make one quick judgement call. Options (exact names):\n' +
          `${question.options.map((option) => `- ${option}`).join('\n')}\n` +
          `Answer only by calling the tool \`${CHOOSE_TOOL}\`.`,
        cache_control: { type: 'ephemeral' },
      },
    ],
    tools: [
      {
        name: CHOOSE_TOOL,
        description: 'Report the decision: up to three option names, best first, and your confidence.',
        input_schema: {
          type: 'object',
          properties: {
            ranking: {
              type: 'array',
              minItems: 1,
              maxItems: RANKING_MAX,
              items: { type: 'string', enum: question.options },
            },
            confidence: { type: 'number', minimum: 0, maximum: 1 },
          },
          required: ['ranking', 'confidence'],
        },
      },
    ],
    tool_choice: { type: 'tool', name: CHOOSE_TOOL },
    messages: [{ role: 'user', content: userMessage(question.text, state) }],
  };
}

function userMessage(text: string, state: Record<string, unknown> | undefined): string {
  return state === undefined ? `Question: ${text}` : `Question: ${text}\nContext: ${JSON.stringify(state)}`;
}
