import type { DecisionState, ImageAttachment, Question } from '../decisions/questions/question.types';

/** One question of a served request, as the pipeline asks it and as the wire names it back. */
export interface ServedQuestion {
  /** The pipeline's key for it: the System One id, or `q<i>` for a Decisions API question. */
  id: string;
  /** The Decisions API's `name` (null when sent without one). */
  name: string | null;
  question: Question;
  /** A Decisions API choice's values in order, typed as sent (`true` stays a boolean): criteria key `String(value)`. */
  values?: readonly (string | boolean)[];
  /** A Decisions API score's level labels, lowest first. */
  labels?: readonly string[];
}

/** A request of either served wire, checked and in the pipeline's terms. */
export interface ServedRequest {
  model: string;
  state?: DecisionState;
  questions: ServedQuestion[];
  images?: ImageAttachment[];
  longContext?: boolean;
}
