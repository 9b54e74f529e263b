import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import * as path from 'node:path';

/** One request either server saw: enough to prove a resume asked for a Range and where a token went. */
export interface HubHit {
  server: 'hub' | 'cdn';
  method: string;
  /** The path without the query (a CDN URL's signature is not kept). */
  path: string;
  range?: string;
  authorization?: string;
}

interface FakeRepo {
  files: Map<string, Buffer>;
  lfs: Set<string>;
  commit: string;
  /** The token the repo needs (a gated repo): 401 without it. */
  token?: string;
}

/** The files the Hub stores in LFS for a typical ONNX reranker repo: the model and its large tokenizer. */
const DEFAULT_LFS = ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json'];

/**
 * A Hugging Face Hub on 127.0.0.1:0 serving repos from folders in its file layout, `/<repo>/resolve/<rev>/<file>`,
 * and a second server standing for its CDN on another host (127.0.0.2, loopback too), as the real Hub does:
 *
 * - HEAD on a resolve URL: `X-Repo-Commit` always; an LFS file answers 302 to the CDN with `X-Linked-Etag`
 *   (its sha256, quoted) and `X-Linked-Size`; a regular file answers 200 with its git blob id as ETag and
 *   its `Content-Length`. GET follows the same routes and serves the bytes, with `Range: bytes=N-` (206).
 * - Errors as the Hub words them: 404 with `X-Error-Code: EntryNotFound` (no such file) or `RevisionNotFound`,
 *   401 `RepoNotFound` for an unknown repo, 401 `GatedRepo` for a repo whose token is missing or wrong.
 * - Faults: `truncate` closes the socket after N bytes of a file's body (for `times` transfers);
 *   `wrongBytes` serves other bytes of the same length than the metadata's sha256 describes; `missing`
 *   404s a file; `hideSize` leaves the size out of HEAD and sends the body chunked; `cdnRedirect` makes the
 *   CDN answer every request with a 302 to that location (itself: a loop; `file:///...`: a bad scheme).
 *
 * `hits` records every request of both servers, the Authorization header included, so a test proves the
 * token reached the Hub and never the CDN.
 */
export class HfHubFake {
  readonly hits: HubHit[] = [];
  truncate?: { file: string; afterBytes: number; times: number };
  readonly wrongBytes = new Set<string>();
  readonly missing = new Set<string>();
  readonly hideSize = new Set<string>();
  /** A host to redirect file downloads to, or 'loop' for a redirect back to the hub itself. */
  cdnRedirect?: string;
  hub!: URL;
  cdn!: URL;
  private readonly repos = new Map<string, FakeRepo>();
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  /**
   * `cdnOnHubHost`: the CDN listens on the Hub's own host name at another port, for the token rule's other
   * side (a host name shared is not the Hub's origin).
   */
  constructor(private readonly options: { cdnOnHubHost?: boolean } = {}) {}

  /** Serves every file under `dir` as `repo`; `lfs` lists the files stored in LFS. */
  addRepo(repo: string, dir: string, { lfs = DEFAULT_LFS, token }: { lfs?: string[]; token?: string } = {}): this {
    const files = new Map<string, Buffer>();
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.set(path.relative(dir, full).split(path.sep).join('/'), readFileSync(full));
      }
    };
    walk(dir);
    const commit = createHash('sha1').update(`commit of ${repo}`).digest('hex');
    this.repos.set(repo, { files, lfs: new Set(lfs.filter((file) => files.has(file))), commit, token });
    return this;
  }

  commitOf(repo: string): string {
    return this.repos.get(repo)!.commit;
  }

  sha256Of(repo: string, file: string): string {
    return sha256(this.repos.get(repo)!.files.get(file)!);
  }

  /** The hits of one server, optionally for paths ending with `file`. */
  hitsOf(server: HubHit['server'], file?: string): HubHit[] {
    return this.hits.filter(
      (hit) =>
        hit.server === server &&
        (file === undefined || hit.path.endsWith(`/${file}`) || hit.path.endsWith(`/${this.blobName(file)}`)),
    );
  }

  async start(): Promise<this> {
    this.hub = await this.listen((req, res) => this.serveHub(req, res), '127.0.0.1', '127.0.0.1');
    if (this.options.cdnOnHubHost) {
      this.cdn = await this.listen((req, res) => this.serveCdn(req, res), '127.0.0.1', '127.0.0.1');
      return this;
    }
    // Another host on loopback, so the token rule (the Hub's origin only) is tested across hosts; where
    // 127.0.0.2 is not configured (macOS), the name localhost still differs from 127.0.0.1 as a host.
    this.cdn = await this.listen((req, res) => this.serveCdn(req, res), '127.0.0.2', '127.0.0.2').catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EADDRNOTAVAIL') throw error;
        return this.listen((req, res) => this.serveCdn(req, res), '127.0.0.1', 'localhost');
      },
    );
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  private async listen(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    address: string,
    hostname: string,
  ): Promise<URL> {
    const server = createServer(handler);
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, address, () => resolve());
    });
    this.servers.push(server);
    return new URL(`http://${hostname}:${(server.address() as AddressInfo).port}`);
  }

  private record(server: HubHit['server'], req: IncomingMessage): void {
    const { range, authorization } = req.headers;
    this.hits.push({
      server,
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0],
      ...(range && { range }),
      ...(authorization && { authorization }),
    });
  }

  private serveHub(req: IncomingMessage, res: ServerResponse): void {
    this.record('hub', req);
    const url = new URL(req.url ?? '/', this.hub);
    const match = /^\/(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!match || (req.method !== 'GET' && req.method !== 'HEAD'))
      return refuse(res, 404, 'EntryNotFound', 'no such route');
    const [, repoName, revision, filePath] = match.map((part) => decodeURIComponent(part));
    const repo = this.repos.get(repoName);
    if (!repo) return refuse(res, 401, 'RepoNotFound', 'Repository not found');
    if (repo.token !== undefined && req.headers.authorization !== `Bearer ${repo.token}`) {
      return refuse(
        res,
        401,
        'GatedRepo',
        `Access to model ${repoName} is restricted. You must be authenticated to access it.`,
      );
    }
    if (revision !== 'main' && revision !== repo.commit)
      return refuse(res, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
    const bytes = repo.files.get(filePath);
    if (!bytes || this.missing.has(filePath))
      return refuse(res, 404, 'EntryNotFound', `${filePath} does not exist on "${revision}"`);
    res.setHeader('x-repo-commit', repo.commit);
    if (repo.lfs.has(filePath)) {
      const hidden = this.hideSize.has(filePath);
      res.writeHead(302, {
        location: `${this.cdn.origin}/blobs/${this.blobName(filePath)}?signature=${createHash('sha1').update(String(Math.random())).digest('hex')}`,
        'x-linked-etag': `"${sha256(bytes)}"`,
        ...(!hidden && { 'x-linked-size': String(bytes.length) }),
        etag: `"${sha256(bytes)}"`,
        'content-length': '0',
      });
      return void res.end();
    }
    res.setHeader('etag', `"${gitBlobId(bytes)}"`);
    this.serveBytes(req, res, filePath, bytes);
  }

  private serveCdn(req: IncomingMessage, res: ServerResponse): void {
    this.record('cdn', req);
    if (this.cdnRedirect !== undefined) {
      res.writeHead(302, {
        location: this.cdnRedirect === 'loop' ? `${this.cdn.origin}${req.url}` : this.cdnRedirect,
        'content-length': '0',
      });
      return void res.end();
    }
    const name = (req.url ?? '').split('?')[0].replace(/^\/blobs\//, '');
    for (const repo of this.repos.values()) {
      for (const [file, bytes] of repo.files)
        if (repo.lfs.has(file) && this.blobName(file) === name) return this.serveBytes(req, res, file, bytes);
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no such blob');
  }

  /** The CDN's name for a file's blob: the file's path, so the test can tell which file a hit was for. */
  private blobName(file: string): string {
    return file.replace(/\//g, '--');
  }

  /** The bytes (or the fault's), from a `Range: bytes=N-` start when asked. */
  private serveBytes(req: IncomingMessage, res: ServerResponse, file: string, original: Buffer): void {
    const bytes = this.wrongBytes.has(file) ? Buffer.from(original.map((byte) => byte ^ 0xff)) : original;
    const asked = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = asked ? Number(asked[1]) : 0;
    if (start > 0 && start >= bytes.length) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.length}`, 'content-length': '0' });
      return void res.end();
    }
    const body = bytes.subarray(start);
    const hidden = this.hideSize.has(file);
    res.writeHead(asked ? 206 : 200, {
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
      ...(!hidden && { 'content-length': String(body.length) }),
      ...(asked && { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` }),
    });
    if (req.method === 'HEAD') return void res.end();
    const cut = this.truncate;
    if (cut && cut.file === file && cut.times > 0 && cut.afterBytes < body.length) {
      cut.times--;
      // What a dropped connection looks like to the client: some bytes, then the socket closes.
      return void res.write(body.subarray(0, cut.afterBytes), () => res.socket?.destroy());
    }
    res.end(body);
  }
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, {
    'x-error-code': code,
    'x-error-message': message,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A regular file's ETag on the Hub: its git blob id. */
function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
