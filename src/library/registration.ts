import { System1InputError } from '../decisions/errors/input-error';
import { givenIdOf } from '../providers/factories/provider-factory';
import type { CustomProvider } from './custom-provider';

/**
 * The name an engine is registered under: the one given, or with the engine alone its own name (a provider
 * factory's `id`). An engine created with an `id` answers under that id only, so its results, attempts and
 * messages all name the same provider (dsh-system1's plugin is registered under its `id`).
 */
export function registration(args: [string, CustomProvider] | [CustomProvider]): {
  name: string;
  engine: CustomProvider;
} {
  if (args.length === 1 && typeof args[0] !== 'string') {
    const [engine] = args;
    const name = ownName(engine);
    if (name === undefined) {
      throw new System1InputError(
        'the provider name',
        'must be given (registerProvider(name, engine)) for an engine without a name of its own',
      );
    }
    return { name, engine };
  }
  const [name, engine] = args as [string, CustomProvider]; // a lone string: asProvider names the missing engine
  const id = givenIdOf(engine);
  if (id !== undefined && name !== id) {
    throw new System1InputError(
      JSON.stringify(name),
      `is not the id the provider was created with (${JSON.stringify(id)}): ` +
        `register it as ${JSON.stringify(id)}, or as registerProvider(provider)`,
    );
  }
  return { name, engine };
}

/** A factory's id, else the engine's own `name` when it is text; never throws (a hostile getter names nothing). */
function ownName(engine: CustomProvider): string | undefined {
  const id = givenIdOf(engine);
  if (id !== undefined) return id;
  try {
    const { name } = engine as { name?: unknown };
    return typeof name === 'string' && name.trim() !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}
