/**
 * Names of 0.1 kept for one release, so a library user's code keeps compiling while they move to the new ones.
 * One vocabulary since: a *provider* is the gateway's adapter for an engine (`System1Provider`, registered
 * through `SYSTEM1_PROVIDERS`, named by `provider` in the config); an *engine* is the server or model behind it.
 */
import { ChoiceProvider } from './providers/choice/choice-provider';
import { System1ProviderDefinition } from './decisions/registry/providers.token';

/** @deprecated since 0.2: the base class of choice-only providers is `ChoiceProvider`. */
export const ChoiceEngine = ChoiceProvider;
/** @deprecated since 0.2: use `ChoiceProvider`. */
export type ChoiceEngine = ChoiceProvider;

/** @deprecated since 0.2: mark a provider definition with `@System1ProviderDefinition()`. */
export const System1Engine = System1ProviderDefinition;
