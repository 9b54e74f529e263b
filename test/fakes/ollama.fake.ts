import { type FakeReply, type RecordedRequest } from './fake-engine';
import { LetterChatFake } from './letter-chat.fake';

/**
 * Ollama (wire-contracts §2): `POST /api/chat` with `logprobs` at the top level, `GET /api/tags`,
 * `GET /api/version`, and `{"error": "..."}` bodies. A chat with a model not in `models` gets Ollama's 404
 * `model "x" not found, try pulling it first`; `version` below 0.12.11 with `withoutLogprobs` plays an old server.
 */
export class OllamaFake extends LetterChatFake {
  readonly name = 'ollama';
  protected readonly decisionPaths = ['/api/chat'] as const;
  models = ['gemma4:e4b'];
  version = '0.12.11';

  protected answer(request: RecordedRequest): FakeReply {
    if (request.method === 'GET' && request.path === '/api/version')
      return { status: 200, body: { version: this.version } };
    if (request.method === 'GET' && request.path === '/api/tags')
      return { status: 200, body: { models: this.models.map(tagEntry) } };
    if (request.method === 'POST' && request.path === '/api/chat') return this.chat(request);
    // Ollama's Go router answers unknown routes in plain text.
    return { status: 404, body: '404 page not found' };
  }

  protected errorBody(status: number): unknown {
    const messages: Record<number, string> = {
      401: 'unauthorized',
      403: 'forbidden',
      429: 'too many requests',
      500: 'llama runner process has terminated: exit status 2',
      503: 'server busy, please try again.  maximum pending requests exceeded',
    };
    return { error: messages[status] ?? `status ${status}` };
  }

  private chat(request: RecordedRequest): FakeReply {
    if (request.body === '') return { status: 400, body: { error: 'missing request body' } };
    const model = this.chatModel(request);
    if (!this.models.some((name) => name === model || name === `${model}:latest`)) {
      return { status: 404, body: { error: `model "${model}" not found, try pulling it first` } };
    }
    return {
      status: 200,
      body: {
        model,
        created_at: '2026-10-21T09:14:07.414671Z',
        message: { role: 'assistant', content: this.content() },
        done: true,
        done_reason: 'length',
        total_duration: 174560334,
        load_duration: 101397084,
        prompt_eval_count: 61,
        prompt_eval_duration: 13074791,
        eval_count: 1,
        eval_duration: 52479709,
        ...(this.withoutLogprobs ? {} : { logprobs: [this.generated(request)] }),
      },
    };
  }
}

function tagEntry(name: string) {
  return {
    name,
    model: name,
    modified_at: '2025-10-03T23:34:03.409490317-07:00',
    size: 9608350245,
    digest: 'c6eb396dbd5992bbe3f5cdb947e8bbc0ee413d7c17e2beaae69f5d569cf982eb',
    details: {
      format: 'gguf',
      family: 'gemma4',
      families: ['gemma4'],
      parameter_size: '8.0B',
      quantization_level: 'Q4_K_M',
    },
  };
}
