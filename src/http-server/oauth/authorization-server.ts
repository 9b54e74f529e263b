import { isRecord } from '../../common/is-record';
import { fetchIssuerJson } from './issuer-fetch';

/** What the authorization server says of itself (RFC 8414 or OpenID discovery) that a resource server needs. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwksUri: string;
}

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
 * (RFC 8414 section 3.3: a document naming another issuer is refused), each read as issuer-fetch.ts reads
 * what an issuer sends: capped, with a deadline, no redirect followed.
 */
export async function discover(
  issuer: string,
  fetchJson: (url: string) => Promise<unknown> = (url) => fetchIssuerJson(url),
): Promise<AuthorizationServerMetadata> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const document = await fetchJson(url);
      const { issuer: named, jwks_uri: jwksUri } = isRecord(document) ? document : {};
      if (named !== issuer)
        throw new Error(`it names the issuer ${JSON.stringify(String(named).slice(0, 80))}, not ${issuer}`);
      if (typeof jwksUri !== 'string') throw new Error('it has no jwks_uri');
      const jwks = new URL(jwksUri);
      if (jwks.protocol !== 'https:' && jwks.protocol !== 'http:')
        throw new Error('its jwks_uri is not an http(s) URL');
      return { issuer, jwksUri: jwks.href };
    } catch (error) {
      problems.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`the authorization server's metadata could not be read (${problems.join('; ')})`);
}
