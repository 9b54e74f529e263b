import type {
  ProviderCreateContext,
  ProviderDefinition,
  ProviderSettingSpecs,
  System1Provider,
} from '../../decisions/registry/provider.interface';
import { hostedConnection, localConnection } from '../http/engine-connection';
import type { EngineHttpClient } from '../http/engine-http.client';
import type { SystemOneDialect, SystemOneSettings } from './systemone-dialect';
import { DialectProvider } from './dialect-provider';

/**
 * The provider definition of a System One dialect: its name and settings are the dialect's, and `create`
 * checks them and builds the shared engine. A dialect's file adds only the injectable class Nest registers:
 *
 * @example
 * @Injectable()
 * @System1ProviderDefinition()
 * export class EchoProviderDefinition extends SystemOneDefinition<EchoSettings> {
 *   constructor(http: EngineHttpClient) {
 *     super(http, ECHO);
 *   }
 * }
 */
export class SystemOneDefinition<S extends SystemOneSettings> implements ProviderDefinition<S> {
  readonly name: string;
  readonly description: string;
  readonly keyVariable: string;
  readonly settings: ProviderSettingSpecs<S>;

  constructor(
    private readonly http: EngineHttpClient,
    private readonly dialect: SystemOneDialect<S>,
  ) {
    this.name = dialect.name;
    this.description = dialect.description;
    this.keyVariable = dialect.keyVariable;
    this.settings = dialect.settings;
  }

  create(settings: S, context: ProviderCreateContext): System1Provider {
    this.dialect.check?.(settings);
    const reach = this.dialect.reach === 'hosted' ? hostedConnection : localConnection;
    return new DialectProvider(this.dialect, settings, reach(this.http, settings, this.keyVariable, context));
  }
}
