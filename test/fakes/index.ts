import type { FakeEngine } from './fake-engine';

/**
 * Every fake engine by the name `npm run fake-engine -- <name>` takes. One line per engine.
 */
export const FAKE_ENGINES: Record<string, () => FakeEngine> = {
};
