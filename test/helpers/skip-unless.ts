/**
 * `describe` / `it` when what a suite needs is here; otherwise their `.skip`, with the reason in the name, so
 * that the run's summary (and test/helpers/skipped-reporter.js, in its last lines) says what was skipped and why.
 * Decided when the file is collected.
 */
export function describeUnless(missing: string | undefined): jest.Describe {
  if (missing === undefined) return describe;
  return Object.assign(
    (name: string, body: () => void) => describe.skip(`${name} [SKIPPED: ${missing}]`, body),
    describe,
  );
}

export function itUnless(missing: string | undefined): jest.It {
  if (missing === undefined) return it;
  return Object.assign(
    (name: string, body: jest.ProvidesCallback, timeout?: number) =>
      it.skip(`${name} [SKIPPED: ${missing}]`, body, timeout),
    it,
  );
}
