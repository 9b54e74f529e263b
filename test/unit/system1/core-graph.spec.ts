/**
 * The hooks build the decision core by hand (src/system1/core-graph.ts) to skip Nest's start-up; this holds
 * that graph to the one System1Module wires: the same services, each with the same kinds of dependency in
 * the same fields.
 */
import { Test } from '@nestjs/testing';
import { loadConfig } from '../../../src/config/config.loader';
import { buildCoreGraph } from '../../../src/system1/core-graph';
import { CORE_SERVICES, System1Module } from '../../../src/system1/system1.module';

const env = { HOME: '/test/home', SYSTEM1_INSTALL_DIR: '/test/install', SYSTEM1_PROVIDER: 'mock' };
const config = () => loadConfig({ env: { ...env, SYSTEM1_CONFIG: '/test/none.toml' }, readFile: () => '' });

/** Each own field of a service as the class of what it holds (plain data as its type). */
function wiring(service: object): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service).map(([field, value]) => [
      field,
      typeof value === 'object' && value !== null ? value.constructor.name : typeof value,
    ]),
  );
}

describe("the hooks' hand-built core", () => {
  it('has every service System1Module provides, wired to the same kinds of dependency', async () => {
    const graph = buildCoreGraph(config(), env);
    const app = await Test.createTestingModule({
      imports: [System1Module.forRoot({ config: config(), env })],
    }).compile();
    const built = Object.values(graph) as object[];
    let compared = 0;
    for (const Service of CORE_SERVICES) {
      const byHand = built.find((service) => service instanceof Service);
      expect(byHand).toBeDefined(); // a core service the hooks would silently lack
      expect(wiring(byHand!)).toEqual(wiring(app.get(Service)));
      compared += Object.keys(wiring(byHand!)).length;
    }
    // Not vacuous: the services hold their dependencies in fields that were compared.
    expect(compared).toBeGreaterThanOrEqual(15);
    await app.close();
  });
});
