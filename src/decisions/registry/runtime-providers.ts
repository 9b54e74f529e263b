import { Injectable } from '@nestjs/common';
import { System1InputError } from '../errors/input-error';
import { AttemptCancelled } from '../../common/deadline';
import type { System1Provider } from './provider.interface';

interface Registration {
  provider: System1Provider;
  /** One controller per call in flight, aborted when the registration is disposed. */
  inFlight: Set<AbortController>;
}

/** Engines registered by the embedding application, by name, with their calls in flight. */
@Injectable()
export class RuntimeProviders {
  private readonly registrations = new Map<string, Registration>();

  /**
   * Adds an engine under `name` and returns its disposer: idempotent, it removes the engine and cancels
   * its calls in flight (they end as `cancelled`, and their chains stop).
   */
  register(name: string, provider: System1Provider, taken: (name: string) => boolean): () => void {
    if (typeof name !== 'string' || name.trim() === '')
      throw new System1InputError('the provider name', 'must be a non-empty string');
    if (this.registrations.has(name) || taken(name))
      throw new System1InputError(JSON.stringify(name), 'is already a provider name');
    const registration: Registration = { provider, inFlight: new Set() };
    this.registrations.set(name, registration);
    return () => {
      if (this.registrations.get(name) !== registration) return;
      this.registrations.delete(name);
      for (const controller of registration.inFlight)
        controller.abort(new AttemptCancelled(`provider ${name} was unregistered during the call`));
    };
  }

  get(name: string): System1Provider | undefined {
    return this.registrations.get(name)?.provider;
  }

  /**
   * A signal that aborts when `name` is unregistered, held for the duration of `work`. Undefined signal
   * for engines that are not registered at run time.
   */
  track<T>(name: string, work: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
    const registration = this.registrations.get(name);
    if (!registration) return work(undefined);
    const controller = new AbortController();
    registration.inFlight.add(controller);
    return work(controller.signal).finally(() => registration.inFlight.delete(controller));
  }

  /** Cancels every call in flight and forgets every engine (the service is closing). */
  clear(): void {
    for (const [name, registration] of this.registrations) {
      for (const controller of registration.inFlight)
        controller.abort(new AttemptCancelled(`the service closed during the call to ${name}`));
    }
    this.registrations.clear();
  }
}
