// A real OAuth 2.1 authorization server for the tests: oidc-provider (a certified OpenID provider), on
// 127.0.0.1, issuing JWT access tokens by the client-credentials grant for the resource a client names
// (RFC 8707). It runs in its own process because oidc-provider is an ES module, which the test runner cannot
// load. It prints {"issuer": "..."} on stdout once it listens. Besides the provider's own routes:
//   POST /test/rotate   a new signing key is put first in the JWKS (the old one stays published)
//   GET  /test/stats    {"jwksFetches": N}: how often the JWKS was read
// Clients (secret "secret-<id>"): team-agent (every scope), reader (system1:read only), short-lived (tokens
// that expire after 4 s: `exp` is in whole seconds, so a shorter life can end before the first use).
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const SCOPES = 'system1:decide system1:ask system1:read';

async function signingKey(kid) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

const client = (id, scope) => ({
  client_id: id,
  client_secret: `secret-${id}`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_basic',
  scope,
});

function provider(issuer, keys) {
  const oidc = new Provider(issuer, {
    clients: [client('team-agent', SCOPES), client('reader', 'system1:read'), client('short-lived', SCOPES)],
    jwks: { keys },
    scopes: SCOPES.split(' '),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource, client) => ({
          scope: SCOPES,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: client.clientId === 'short-lived' ? 4 : 600,
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  // Nothing of the provider's own logging on the test's output.
  oidc.on('server_error', () => undefined);
  return oidc;
}

let jwksFetches = 0;
let keys = [await signingKey('first')];
let current;
let issuer;
const server = createServer((req, res) => {
  if (req.url === '/test/rotate' && req.method === 'POST') {
    signingKey(`rotated-${keys.length}`).then((key) => {
      keys = [key, ...keys];
      current = provider(issuer, keys).callback();
      res.end(JSON.stringify({ kid: key.kid }));
    });
    return;
  }
  if (req.url === '/test/stats') return res.end(JSON.stringify({ jwksFetches }));
  if (req.url.startsWith('/jwks')) jwksFetches++;
  current(req, res);
});
server.listen(0, '127.0.0.1', () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  current = provider(issuer, keys).callback();
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
