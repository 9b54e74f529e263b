import type { HttpCallerSettings, HttpSettings } from '../../config/config-keys';
import { TOOL_NAMES } from '../../mcp/tool-list';

/** In a caller's `tools`: every tool. */
const ALL_TOOLS = '*';

/** What one caller of serve-http may do: the tools it may call, the models it may choose, its rate. */
export interface CallerPolicy {
  tools: ReadonlySet<string>;
  callerModels: readonly string[];
  ratePerMinute: number;
  burst: number;
}

/**
 * The policy of each caller: its `[http.callers.<name>]` table (keys left out are `[http]`'s), else `[http]`.
 * Problems (an unknown tool name) are returned for the server's start, naming the key.
 */
export class CallerPolicies {
  private readonly byName = new Map<string, CallerPolicy>();
  private readonly fallback: CallerPolicy;
  readonly problems: string[] = [];

  constructor(http: HttpSettings, callers: Record<string, HttpCallerSettings>) {
    this.fallback = this.policy('[http] tools', http);
    for (const [name, settings] of Object.entries(callers))
      this.byName.set(name, this.policy(`[http.callers.${name}] tools`, settings));
  }

  /** The names the config gives a policy of their own. */
  get configured(): string[] {
    return [...this.byName.keys()];
  }

  for(caller: string): CallerPolicy {
    return this.byName.get(caller) ?? this.fallback;
  }

  /** `[http]`'s policy: every caller without a table of its own. */
  get defaults(): CallerPolicy {
    return this.fallback;
  }

  private policy(key: string, settings: HttpCallerSettings): CallerPolicy {
    const known: readonly string[] = TOOL_NAMES;
    for (const tool of settings.tools) {
      if (tool !== ALL_TOOLS && !known.includes(tool))
        this.problems.push(`${key}: ${JSON.stringify(tool)} is not a tool (${known.join(', ')}, or *)`);
    }
    return {
      tools: new Set(settings.tools.includes(ALL_TOOLS) ? known : settings.tools),
      callerModels: settings.caller_models,
      ratePerMinute: settings.rate_per_minute,
      burst: settings.burst,
    };
  }
}
