/** The hooks' resolver of a wiring list: each service once, after what it injects, without Nest. */
import { resolveWiring, supply } from '../../../src/system1/resolve-wiring';
import { typedToken, wire } from '../../../src/system1/wiring';

const NAME = typedToken<string>(Symbol('NAME'));
const NOTE = typedToken<string>(Symbol('NOTE'), { optional: true });

class Clock {}
class Greeter {
  constructor(
    readonly name: string,
    readonly clock: Clock,
    readonly note?: string,
  ) {}
}
class Front {
  constructor(readonly greeter: Greeter) {}
}

it('builds each service once, after its dependencies, whatever the order of the list', () => {
  const resolved = resolveWiring(
    [wire(Front, Greeter), wire(Greeter, NAME, Clock, NOTE), wire(Clock)],
    [supply(NAME, 'ada')],
  );
  const front = resolved.get(Front);
  expect(front.greeter).toBe(resolved.get(Greeter));
  expect(front.greeter).toMatchObject({ name: 'ada', note: undefined });
  expect(front.greeter.clock).toBe(resolved.get(Clock));
});

it('names what is missing', () => {
  expect(() => resolveWiring([wire(Greeter, NAME, Clock, NOTE), wire(Clock)], [])).toThrow(
    /nothing supplies Symbol\(NAME\), and Greeter needs it/,
  );
  expect(() => resolveWiring([wire(Front, Greeter)], [])).toThrow(/Greeter is not in the list, and Front needs it/);
});
