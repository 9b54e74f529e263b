import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * How the fake issuer answers one of its two documents:
 * - `ok`: the real document;
 * - `huge`: a 256 MB body, chunked (no Content-Length), sent as long as the client keeps reading;
 * - `huge-declared`: the same with a truthful `Content-Length: 268435456`;
 * - `failing`: 500 (an identity provider having a bad day);
 * - `stalled`: the headers, then nothing (a body that never ends).
 */
export type IssuerDocumentMode = 'ok' | 'huge' | 'huge-declared' | 'failing' | 'stalled';

export const HUGE_DOCUMENT_BYTES = 256 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

type Jose = typeof import('jose');
type PrivateKey = Awaited<ReturnType<Jose['generateKeyPair']>>['privateKey'];
type SigningKey = { kid: string; privateKey: PrivateKey; publicJwk: Record<string, unknown> };

/**
 * An OAuth authorization server as far as a resource server sees one: RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server`, a JWKS at `/jwks`, ES256 tokens signed with its current key; each
 * document can be made to lie (see IssuerDocumentMode). It counts what was asked of it and how many bytes of
 * each document went out before the client hung up.
 */
export class FakeIssuer {
  discoveryMode: IssuerDocumentMode = 'ok';
  jwksMode: IssuerDocumentMode = 'ok';
  readonly fetches = { discovery: 0, jwks: 0 };
  bytesSent = 0;
  private keys: SigningKey[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly jose: Jose,
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async start(): Promise<FakeIssuer> {
    const jose = await import('jose');
    let fake: FakeIssuer | undefined;
    const server = createServer((req, res) => fake!.answer(req.url ?? '/', res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    fake = new FakeIssuer(jose, server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket) => {
      fake!.sockets.add(socket);
      socket.on('close', () => fake!.sockets.delete(socket));
    });
    await fake.rotate();
    return fake;
  }

  /** A new signing key, used from now on and published first; the old ones stay published. */
  async rotate(): Promise<void> {
    const { privateKey, publicKey } = await this.jose.generateKeyPair('ES256', { extractable: true });
    const kid = `key-${this.keys.length + 1}`;
    const publicJwk = { ...(await this.jose.exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    this.keys.unshift({ kid, privateKey, publicJwk });
  }

  /**
   * A JWT access token for `audience`, valid for an hour unless `claims` say otherwise; `kid` overrides the
   * header's key id (a key the issuer never published).
   */
  async token(claims: Record<string, unknown>, audience: string, options: { kid?: string } = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new this.jose.SignJWT({ iss: this.issuer, aud: audience, iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: options.kid ?? this.keys[0].kid })
      .sign(this.keys[0].privateKey);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(url: string, res: ServerResponse): void {
    if (url === '/.well-known/oauth-authorization-server') {
      this.fetches.discovery++;
      return this.send(res, this.discoveryMode, { issuer: this.issuer, jwks_uri: `${this.issuer}/jwks` });
    }
    if (url === '/jwks') {
      this.fetches.jwks++;
      return this.send(res, this.jwksMode, { keys: this.keys.map((key) => key.publicJwk) });
    }
    res.writeHead(404).end();
  }

  private send(res: ServerResponse, mode: IssuerDocumentMode, document: object): void {
    if (mode === 'failing') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"server_error"}');
      return;
    }
    if (mode === 'ok') {
      const body = JSON.stringify(document);
      this.bytesSent += Buffer.byteLength(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(mode === 'huge-declared' && { 'content-length': HUGE_DOCUMENT_BYTES }),
    });
    if (mode === 'stalled') {
      res.write('{"issuer":');
      return;
    }
    this.stream(res);
  }

  /** 256 MB a chunk at a time, waiting for the client to read each: it stops when the client hangs up. */
  private stream(res: ServerResponse): void {
    let sent = 0;
    const more = () => {
      while (sent < HUGE_DOCUMENT_BYTES && !res.destroyed) {
        const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, HUGE_DOCUMENT_BYTES - sent));
        sent += chunk.length;
        this.bytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      if (!res.destroyed) res.end();
    };
    more();
  }
}
