import { LlamaServerFake } from './systemone.fake';
import { type FakeChoiceQuestion, jevConfidence, round } from './systemone-answer';

/**
 * llama-server with a decision model that answers every typed question natively (wire-contracts §1.2):
 * `choice` with probabilities and Jev's confidence, `noul` as P(true) without a confidence, `score` with the
 * expected level, a legend echoing the criteria and string-indexed probabilities. Tests steer each question
 * id: the option picked, P(true), the likeliest level, and how sure the engine is.
 */
export class TypedSystemOneFake extends LlamaServerFake {
  /** The option a choice question picks, by question id (default: the first). */
  pickOption: Record<string, string> = {};
  /** The picked option's probability. */
  choiceTop = 0.97;
  /** P(true) of a noul question, by question id (default `noulDefault`). */
  noulOf: Record<string, number> = {};
  noulDefault = 0.98;
  /** The likeliest level of a score question, by question id (default 0), with probability `scoreTop`. */
  levelOf: Record<string, number> = {};
  scoreTop = 0.95;

  protected override answerFor(question: FakeChoiceQuestion, body: unknown): Record<string, unknown> {
    if (question.type === 'noul') return { type: 'noul', noul: this.noulOf[question.id] ?? this.noulDefault };
    if (question.type === 'score') return this.score(question.id, question.levels!);
    if (question.type === 'choice') return this.choice(question.id, question.options);
    return super.answerFor(question, body);
  }

  private choice(id: string, options: string[]): Record<string, unknown> {
    const picked = this.pickOption[id] ?? options[0];
    const rest = round((1 - this.choiceTop) / Math.max(1, options.length - 1), 4);
    const probabilities = Object.fromEntries(
      options.map((option) => [option, option === picked ? this.choiceTop : rest]),
    );
    return { type: 'choice', choice: picked, probabilities, confidence: jevConfidence(probabilities) };
  }

  private score(id: string, levels: string[]): Record<string, unknown> {
    const top = this.levelOf[id] ?? 0;
    const rest = round((1 - this.scoreTop) / Math.max(1, levels.length - 1), 4);
    const shares = levels.map((_, i) => (i === top ? this.scoreTop : rest));
    return {
      type: 'score',
      score: round(
        shares.reduce((sum, p, i) => sum + i * p, 0),
        4,
      ),
      legend: Object.fromEntries(levels.map((level, i) => [String(i), level])),
      probabilities: Object.fromEntries(shares.map((p, i) => [String(i), p])),
      confidence: this.scoreTop,
    };
  }
}
