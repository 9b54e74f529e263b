/** What the authorization server says of itself (RFC 8414 or OpenID discovery) that a resource server needs. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwksUri: string;
}

/** Discovery documents are a few KB; a larger answer is not one. */
const MAX_METADATA_BYTES = 256 * 1024;
const DISCOVERY_TIMEOUT_MS = 5000;

/**
 * Where an issuer's metadata may be: RFC 8414's path-inserted well-known URI first, then OpenID discovery's
 * appended one (Keycloak, Entra ID, Okta and Auth0 publish the latter; some only that).
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The issuer's metadata, from the first well-known URI that answers with a document for this very issuer
 * (RFC 8414 section 3.3: a document naming another issuer is refused). Redirects are not followed: the
 * operator named the issuer, and nothing else is asked.
 */
export async function discover(issuer: string, fetchImpl: typeof fetch = fetch): Promise<AuthorizationServerMetadata> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const response = await fetchImpl(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS),
        headers: { accept: 'application/json' },
      });
      if (!response.ok) {
        problems.push(`${url}: HTTP ${response.status}`);
        await response.body?.cancel();
        continue;
      }
      const text = await response.text();
      if (text.length > MAX_METADATA_BYTES) throw new Error(`larger than ${MAX_METADATA_BYTES} bytes`);
      const document = JSON.parse(text) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== issuer)
        throw new Error(`it names the issuer ${JSON.stringify(String(document.issuer).slice(0, 80))}, not ${issuer}`);
      if (typeof document.jwks_uri !== 'string') throw new Error('it has no jwks_uri');
      const jwks = new URL(document.jwks_uri);
      if (jwks.protocol !== 'https:' && jwks.protocol !== 'http:')
        throw new Error('its jwks_uri is not an http(s) URL');
      return { issuer, jwksUri: jwks.href };
    } catch (error) {
      problems.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`the authorization server's metadata could not be read (${problems.join('; ')})`);
}
