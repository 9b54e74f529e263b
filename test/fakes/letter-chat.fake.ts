import { FakeEngine, type RecordedRequest } from './fake-engine';

/** One generated token with its alternatives, as Ollama and OpenAI-compatible servers report it. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: { token: string; logprob: number; bytes: number[] }[];
}

/**
 * What the two letter-technique fakes (`ollama`, `openai`) share: a chat model that reads the lettered
 * options of the prompt and answers one token with its top logprobs. By default it picks the first option:
 * `A` at -0.105, the next letter at -2.31 and the leading-space variant `" A"` at -6.2.
 */
export abstract class LetterChatFake extends FakeEngine {
  /** The letter answered; default the first option's. */
  letter = 'A';
  /** Replaces the top logprobs of the answer (the generated token stays `answerToken ?? letter`). */
  topLogprobs?: { token: string; logprob: number }[];
  /** A token generated instead of a letter ("Sure", "<think>"): the non-letter mode. */
  answerToken?: string;
  /** An old Ollama or LM Studio: the reply carries no logprobs at all. */
  withoutLogprobs = false;
  /** The models the server has; a chat with another model is the engine's 404. */
  abstract models: string[];

  /** The option letters of the prompt's last user message (`A) ...` lines). */
  protected optionLetters(request: RecordedRequest): string[] {
    const messages = (request.body as { messages?: { role: string; content: string }[] }).messages ?? [];
    const user = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
    return [...user.matchAll(/^([A-Z])\) /gm)].map((match) => match[1]);
  }

  /** The answer token and its logprobs for a chat request. */
  protected generated(request: RecordedRequest): TokenLogprob {
    const letters = this.optionLetters(request);
    const token = this.answerToken ?? this.letter;
    const runnerUp = letters.find((letter) => letter !== this.letter) ?? 'B';
    const top = this.topLogprobs ?? [
      { token: this.letter, logprob: -0.105 },
      { token: runnerUp, logprob: -2.31 },
      { token: ` ${this.letter}`, logprob: -6.2 },
    ];
    const chosen = top.find((entry) => entry.token === token)?.logprob ?? -0.105;
    return { ...withBytes({ token, logprob: chosen }), top_logprobs: top.map(withBytes) };
  }

  protected content(): string {
    return this.answerToken ?? this.letter;
  }

  protected chatModel(request: RecordedRequest): string {
    return String((request.body as { model?: unknown }).model ?? '');
  }
}

function withBytes({ token, logprob }: { token: string; logprob: number }) {
  return { token, logprob, bytes: [...Buffer.from(token, 'utf8')] };
}
