import { randomBytes } from 'node:crypto';
import type { DecideMeta } from '../decisions/questions/question-results';
import type { Endpoint } from './request-eligibility';

/**
 * The fast answer as the endpoint's own response object, so any OpenAI client parses it: a
 * `chat.completion`, or a Responses API `response`. `model` names the engine that really answered
 * (`system1:<provider>/<model>`), never the model the caller asked for.
 */
export function fastCompletion(
  endpoint: Endpoint,
  object: unknown,
  meta: DecideMeta,
  nowMs: number,
): Record<string, unknown> {
  const text = JSON.stringify(object);
  const model = answeredBy(meta);
  const created = Math.floor(nowMs / 1000);
  const input = meta.usage?.inputTokens ?? 0;
  const output = meta.usage?.outputTokens ?? 0;
  if (endpoint === 'chat.completions') {
    return {
      id: `chatcmpl-${id()}`,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      system_fingerprint: null,
    };
  }
  return {
    id: `resp_${id()}`,
    object: 'response',
    created_at: created,
    status: 'completed',
    error: null,
    incomplete_details: null,
    model,
    output: [
      {
        type: 'message',
        id: `msg_${id()}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      },
    ],
    parallel_tool_calls: false,
    tool_choice: 'none',
    tools: [],
    usage: {
      input_tokens: input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: input + output,
    },
  };
}

function answeredBy(meta: DecideMeta): string {
  const ref = meta.executed ?? meta.requested;
  return `system1:${ref.provider}${ref.model ? `/${ref.model}` : ''}`;
}

const id = () => randomBytes(12).toString('hex');
