import type { HttpOAuthSettings } from '../../config/config-keys';
import type { ToolName } from '../../mcp/tool-list';

/** The scope each tool needs: its own for the two that ask an engine, one for the two that only read. */
const TOOL_SCOPES: Record<ToolName, string> = {
  system1_decide: 'decide',
  system1_ask: 'ask',
  system1_health: 'read',
  system1_capabilities: 'read',
};

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/**
 * What serve-http publishes as an OAuth 2.1 protected resource (RFC 9728) and the scope rule: clients find
 * the authorization server from the 401's `resource_metadata`, and ask it for a token for `resource`.
 */
export class ProtectedResource {
  constructor(private readonly settings: HttpOAuthSettings) {}

  /** The scope `tool` needs, e.g. `system1:decide`. */
  scopeFor(tool: ToolName): string {
    return `${this.settings.scope_prefix}${TOOL_SCOPES[tool]}`;
  }

  get scopes(): string[] {
    return [...new Set(Object.values(TOOL_SCOPES))].map((scope) => `${this.settings.scope_prefix}${scope}`);
  }

  /** RFC 9728 section 3.1: the well-known path inserted before the resource's own path. */
  get metadataUrl(): string {
    const resource = new URL(this.settings.audience);
    const path = resource.pathname === '/' ? '' : resource.pathname;
    return `${resource.origin}${PROTECTED_RESOURCE_PATH}${path}`;
  }

  /** Paths this server answers the metadata at: the path-inserted one, and the bare one for older clients. */
  get metadataPaths(): string[] {
    return [...new Set([new URL(this.metadataUrl).pathname, PROTECTED_RESOURCE_PATH])];
  }

  metadata(): Record<string, unknown> {
    return {
      resource: this.settings.audience,
      authorization_servers: [this.settings.issuer],
      scopes_supported: this.scopes,
      bearer_methods_supported: ['header'],
      resource_name: 'System-1 Gateway',
    };
  }

  /** The `WWW-Authenticate` value of a 401 or 403 (RFC 6750 section 3, RFC 9728 section 5.1). */
  challenge(error?: { code: 'invalid_token' | 'insufficient_scope'; description: string; scope?: string }): string {
    const parts = [`resource_metadata="${this.metadataUrl}"`];
    if (error) {
      parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, "'")}"`);
      if (error.scope) parts.push(`scope="${error.scope}"`);
    }
    return `Bearer ${parts.join(', ')}`;
  }
}
