import type { PoolMember } from '../registry/engine-pool';
import { type CooldownService, type CooldownState, endpointKey } from './cooldown.service';
import type { EndpointLoad } from './endpoint-load.service';

/** A replica as the read-only views show it: its cooldown and the requests in flight to it. */
export interface ReplicaState {
  cooldown: CooldownState;
  inFlight: number;
}

/** Each replica's state, read and never claimed (no trial is taken by looking), for capabilities and metrics. */
export class ReplicaStates {
  constructor(
    private readonly cooldown: CooldownService,
    private readonly load: EndpointLoad,
  ) {}

  of(provider: string, member: PoolMember): ReplicaState {
    return {
      cooldown: this.cooldown.state(endpointKey({ provider }, member)),
      inFlight: this.load.of(provider, member).inFlight,
    };
  }
}
