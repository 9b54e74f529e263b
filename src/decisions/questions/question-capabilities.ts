import { shown } from '../../common/clip';
import { type DecisionError, DecisionErrorCode } from '../errors/decision-error';
import type { DecisionRequest } from './decision.types';
import { type ImageAttachment, type ImageMediaType, type Question, type QuestionType } from './question.types';

/**
 * What an engine's `evaluate` takes, as `system1_capabilities` and the library report it. A limit left out
 * is one the engine does not publish: the engine enforces it, we do not guess.
 */
export interface QuestionCapabilities {
  types: QuestionType[];
  max_questions?: number;
  /** Candidates per choice question. */
  max_options?: number;
  /** Candidates over all the choice questions of one request (Laya: 512). */
  max_total_options?: number;
  /** Levels per score question. */
  max_levels?: number;
  /** Absent = no image input. */
  images?: { media_types: ImageMediaType[]; max_count: number; max_bytes?: number };
  /** Absent = `longContext` is not offered. */
  long_context?: { max_tokens: number };
}

/** What a provider takes as typed questions: its own word, else choice, noul and score without limits. */
export function questionCapabilitiesOf(capabilities: { questions?: QuestionCapabilities }): QuestionCapabilities {
  return capabilities.questions ?? { types: ['choice', 'noul', 'score'] };
}

type Checked = Pick<DecisionRequest, 'questions' | 'longContext'> & {
  state?: unknown;
  images?: readonly ImageAttachment[];
};

export type QuestionPlan =
  | { ok: true; questions: Record<string, Question>; refused: Record<string, DecisionError> }
  | { ok: false; error: DecisionError };

/**
 * What to ask an engine. A question type it does not answer refuses the whole request, so the chain moves
 * on; with `answerWhatItCan` (the chain's last engine) the other questions are asked and those are
 * refused one by one. Limits and images always refuse the whole request.
 */
/** Nothing refused: one frozen object for every plan that takes the whole request. */
const NONE_REFUSED: Record<string, DecisionError> = Object.freeze({});

export function planQuestions(
  engine: string,
  request: Checked,
  capabilities: QuestionCapabilities,
  answerWhatItCan: boolean,
): QuestionPlan {
  const untaken = Object.keys(request.questions).filter(
    (id) => !capabilities.types.includes(request.questions[id].type),
  );
  if (!answerWhatItCan || untaken.length === Object.keys(request.questions).length) {
    const refusal = capabilityRefusal(engine, request, capabilities);
    return refusal ? { ok: false, error: refusal } : { ok: true, questions: request.questions, refused: NONE_REFUSED };
  }
  const skipped = new Set(untaken);
  const questions = Object.fromEntries(Object.entries(request.questions).filter(([id]) => !skipped.has(id)));
  const refusal = capabilityRefusal(engine, { ...request, questions }, capabilities);
  if (refusal) return { ok: false, error: refusal };
  const refused = Object.fromEntries(
    untaken.map((id) => [id, capabilityRefusal(engine, { questions: { [id]: request.questions[id] } }, capabilities)!]),
  );
  return { ok: true, questions, refused };
}

/**
 * Why an engine cannot take this request, before anything is sent: `unsupported` for a question type,
 * image or option it does not offer, `limit_exceeded` for a count over its limit. Either one moves the
 * chain to the next engine. Undefined = it can take it.
 */
export function capabilityRefusal(
  engine: string,
  request: Checked,
  capabilities: QuestionCapabilities,
): DecisionError | undefined {
  const unsupported = (message: string): DecisionError => ({
    code: DecisionErrorCode.Unsupported,
    message: `${engine} ${message}`,
  });
  const over = (message: string): DecisionError => ({
    code: DecisionErrorCode.LimitExceeded,
    message: `${engine} ${message}`,
  });

  const { state } = request;
  if (state !== undefined && typeof state !== 'string' && (typeof state !== 'object' || state === null)) {
    return unsupported(
      `takes text, a JSON object or a JSON array as state, not ${state === null ? 'null' : `a ${typeof state}`}`,
    );
  }
  const entries = Object.entries(request.questions);
  for (const [id, question] of entries) {
    if (!capabilities.types.includes(question.type)) {
      return unsupported(
        `does not answer ${question.type} questions (question ${shown(id)}; ` +
          `it answers ${capabilities.types.join(', ')})`,
      );
    }
  }
  if (capabilities.max_questions !== undefined && entries.length > capabilities.max_questions) {
    return over(`takes at most ${capabilities.max_questions} questions per request, not ${entries.length}`);
  }
  let totalOptions = 0;
  for (const [id, question] of entries) {
    if (question.type === 'choice') {
      const count = Object.keys(question.criteria).length;
      totalOptions += count;
      if (capabilities.max_options !== undefined && count > capabilities.max_options) {
        return over(
          `takes at most ${capabilities.max_options} candidates per choice question; ${shown(id)} has ${count}`,
        );
      }
    }
    if (
      question.type === 'score' &&
      capabilities.max_levels !== undefined &&
      question.criteria.length > capabilities.max_levels
    ) {
      return over(
        `takes at most ${capabilities.max_levels} levels per score question; ` +
          `${shown(id)} has ${question.criteria.length}`,
      );
    }
  }
  if (capabilities.max_total_options !== undefined && totalOptions > capabilities.max_total_options) {
    return over(`takes at most ${capabilities.max_total_options} candidates over all questions, not ${totalOptions}`);
  }
  if (request.longContext && !capabilities.long_context) return unsupported('offers no extended context (longContext)');
  return request.images?.length ? imageRefusal(request.images, capabilities, unsupported, over) : undefined;
}

function imageRefusal(
  images: NonNullable<Checked['images']>,
  { images: accepted }: QuestionCapabilities,
  unsupported: (message: string) => DecisionError,
  over: (message: string) => DecisionError,
): DecisionError | undefined {
  if (!accepted) return unsupported('takes no images');
  if (images.length > accepted.max_count)
    return over(`takes at most ${accepted.max_count} images, not ${images.length}`);
  for (const [index, image] of images.entries()) {
    if (!accepted.media_types.includes(image.mediaType)) {
      return unsupported(
        `does not read ${image.mediaType} images (images[${index}]; it reads ${accepted.media_types.join(', ')})`,
      );
    }
    const bytes = base64Bytes(image.data);
    if (accepted.max_bytes !== undefined && bytes > accepted.max_bytes) {
      return over(`takes images of at most ${accepted.max_bytes} bytes; images[${index}] has ${bytes}`);
    }
  }
  return undefined;
}

/** Decoded size of padded Base64, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}
