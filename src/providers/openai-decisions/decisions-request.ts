/**
 * The body of OpenAI's Decisions API (`POST /v1/decisions`, wire-contracts §10.1; the contract is the `openai`
 * package's `resources/decisions.d.ts`) for the gateway's typed questions: every question of a call in one
 * request, in the call's order, each named by its question id so that the reply can be checked against it.
 */
import { isBare, noulText, render } from '../../decisions/pipeline/question-text';
import { ProviderError } from '../../decisions/errors/decision-error';
import type { EvaluateRequest } from '../../decisions/registry/provider.interface';
import type { ImageAttachment, Question } from '../../decisions/questions/question.types';

/** The question types of the Decisions API, by the gateway's type each answers. */
export const WIRE_TYPES = { noul: 'predicate', choice: 'choice', score: 'score' } as const;
export type WireType = (typeof WIRE_TYPES)[keyof typeof WIRE_TYPES];

/** One question as the Decisions API takes it (`QuestionParamPredicate | QuestionParamChoice | QuestionParamScore`). */
export type DecisionsQuestion =
  | { type: 'predicate'; name: string; instructions: string }
  | { type: 'choice'; name: string; instructions: string; choices: { value: string; description?: string }[] }
  | { type: 'score'; name: string; instructions: string; levels: { label: string }[] };

/** A user message of text and images (`DecisionInputUserMessage` with `input_text` and `input_image` parts). */
type ImageInput = {
  type: 'message';
  role: 'user';
  content: ({ type: 'input_text'; text: string } | { type: 'input_image'; image_url: string })[];
}[];

export interface DecisionsRequestBody {
  model: string;
  input: string | ImageInput;
  questions: DecisionsQuestion[];
}

/**
 * The request for `request`'s questions, in their order. The state is the input: text as it is, JSON written
 * out (as System One engines render a JSON state), `{}` when the call gave none (System One's "no context");
 * with images it becomes one user message of that text and the images as data URLs.
 */
export function decisionsRequest(request: EvaluateRequest, model: string): DecisionsRequestBody {
  const { state = {} } = request;
  // A scalar state never gets here: the capability check refuses it, as for every engine.
  const text = typeof state === 'string' ? state : JSON.stringify(state);
  return {
    model,
    input: request.images?.length ? imageInput(text, request.images) : text,
    questions: Object.entries(request.questions).map(([id, question]) => decisionsQuestion(id, question)),
  };
}

function imageInput(text: string, images: readonly ImageAttachment[]): ImageInput {
  const parts = images.map((image) => ({
    type: 'input_image' as const,
    image_url: `data:${image.mediaType};base64,${image.data}`,
  }));
  return [{ type: 'message', role: 'user', content: [{ type: 'input_text', text }, ...parts] }];
}

/**
 * One question, named by its id. A choice's candidates are its values, each described unless it says no more
 * than its key; a score's levels are labelled by their text; what true and false mean of a yes/no question
 * joins its instructions in the words the choice engines use, since a predicate has no criteria.
 */
export function decisionsQuestion(name: string, question: Question): DecisionsQuestion {
  const instructions = render(question.instructions);
  switch (question.type) {
    case 'noul':
      return { type: 'predicate', name, instructions: noulText(question) };
    case 'choice':
      return {
        type: 'choice',
        name,
        instructions,
        choices: Object.entries(question.criteria).map(([value, description]) =>
          isBare(value, description) ? { value } : { value, description: render(description!) },
        ),
      };
    case 'score':
      return {
        type: 'score',
        name,
        instructions,
        levels: question.criteria.map((level) => ({ label: render(level) })),
      };
    case 'box':
      // The capabilities leave box out, so the pipeline refuses it before a request is built.
      throw new ProviderError(`the Decisions API has no box questions (question ${JSON.stringify(name)})`);
  }
}
