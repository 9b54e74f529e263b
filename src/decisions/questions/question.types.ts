/**
 * Typed questions about one state, answered together: the shapes of the library API (`createSystem1`) and of
 * the engines that take them natively (the System One protocol, wire-contracts §1). Every surface asks the
 * decision pipeline in these terms.
 */

export const QUESTION_TYPES = ['choice', 'noul', 'score', 'box'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Instructions and descriptions: text, or JSON an engine renders as text (an object or an array). */
export type Described = string | Record<string, unknown> | unknown[];

/** Pick one of named candidates; a description may be null (the key stands for itself). */
export interface ChoiceQuestion {
  type: 'choice';
  instructions: Described;
  criteria: Record<string, Described | null>;
}

/** Is a statement true? Answered as the probability that it is. */
export interface NoulQuestion {
  type: 'noul';
  instructions: Described;
  /** What true and false mean, when the instructions leave it open. */
  criteria?: { true?: Described; false?: Described };
}

/** Place the state on ordered levels, lowest first (2 or more). */
export interface ScoreQuestion {
  type: 'score';
  instructions: Described;
  criteria: Described[];
}

/** Locate something in the request's images. */
export interface BoxQuestion {
  type: 'box';
  instructions: Described;
}

export type Question = ChoiceQuestion | NoulQuestion | ScoreQuestion | BoxQuestion;

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** An image every question of the request may look at: padded standard Base64, no data-URL prefix. */
export interface ImageAttachment {
  mediaType: ImageMediaType;
  data: string;
}

/** The state questions are about: text, or JSON (an object or an array; other scalars are `unsupported`). */
export type DecisionState = string | Record<string, unknown> | unknown[] | number | boolean | null;

/** The candidate key chosen, with the probability of every candidate in the question's order. */
export interface ChoiceAnswer {
  type: 'choice';
  value: string;
  probabilities: Record<string, number>;
  /** The probability of `value`, after calibration when a fit matches. */
  confidence: number;
  calibrated: boolean;
}

/** `value` is `probabilityTrue >= 0.5`; confidence is |2p - 1|, on the same 0..1 scale as a choice's. */
export interface NoulAnswer {
  type: 'noul';
  value: boolean;
  probabilityTrue: number;
  confidence: number;
  calibrated: boolean;
}

/**
 * `value` is the expected zero-based level (it may fall between levels); `level` the most likely one, whose
 * probability is `confidence`; `distribution` follows the criteria's order.
 */
export interface ScoreAnswer {
  type: 'score';
  value: number;
  level: number;
  distribution: number[];
  confidence: number;
  calibrated: boolean;
}

/** Edges as fractions of the image, 0 at the top / left. */
export interface BoxAnswer {
  type: 'box';
  box: { top: number; bottom: number; left: number; right: number };
  /** As the engine reported it, when it did. */
  confidence?: number;
}

export type Answer = ChoiceAnswer | NoulAnswer | ScoreAnswer | BoxAnswer;

/** An engine and, where it serves several, the model to ask. */
export interface ModelRef {
  provider: string;
  model?: string;
}
