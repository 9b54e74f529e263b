/**
 * A call whose structure is wrong (a missing state, an unknown question type, a bad id): thrown by the
 * library's `decide` before any engine runs. `field` names what was wrong (`questions.urgency.criteria`).
 */
export class System1InputError extends Error {
  override readonly name = 'System1InputError';
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
  }
}
