/**
 * The rules a pull applies before any socket: which request may carry HF_TOKEN, which endpoints and names are
 * refused, and how the Hub's HEAD headers are read.
 */
import { HubEndpoint, withoutHubToken } from '../../../src/local-engines/hub/hub-endpoint';
import { fileMetadataOf } from '../../../src/local-engines/hub/hub-file-metadata';
import { checkRepoName, checkRevision } from '../../../src/local-engines/hub/repo-name';

const SHA = 'a'.repeat(64);

describe('HubEndpoint', () => {
  it('is the Hub by default, and builds resolve URLs with the revision as one segment', () => {
    const hub = HubEndpoint.fromEnv({});
    expect(hub.origin).toBe('https://huggingface.co');
    expect(hub.fileUrl('Alibaba-NLP/gte-reranker-modernbert-base', 'refs/pr/1', 'onnx/model.onnx').href).toBe(
      'https://huggingface.co/Alibaba-NLP/gte-reranker-modernbert-base/resolve/refs%2Fpr%2F1/onnx/model.onnx',
    );
  });

  it('takes a mirror from HF_ENDPOINT, a path under it included', () => {
    const hub = HubEndpoint.fromEnv({ HF_ENDPOINT: 'http://127.0.0.1:9/hf/' });
    expect(hub.fileUrl('o/n', 'main', 'config.json').href).toBe('http://127.0.0.1:9/hf/o/n/resolve/main/config.json');
  });

  it("gives the token to the endpoint's origin only: not another host, port or scheme", () => {
    const hub = HubEndpoint.fromEnv({ HF_ENDPOINT: 'https://hub.example', HF_TOKEN: ' hf_secret ' });
    expect(hub.hasToken).toBe(true);
    expect(hub.headersFor(new URL('https://hub.example/o/n/resolve/main/x'))).toEqual({
      authorization: 'Bearer hf_secret',
    });
    for (const other of [
      'https://cdn-lfs.hub.example/x',
      'https://hub.example:8443/x',
      'http://hub.example/x',
      'https://evil.example/x',
    ]) {
      expect(hub.headersFor(new URL(other))).toEqual({});
    }
  });

  it('treats a blank HF_TOKEN as none', () => {
    const hub = HubEndpoint.fromEnv({ HF_TOKEN: '  ' });
    expect(hub.hasToken).toBe(false);
    expect(hub.headersFor(new URL('https://huggingface.co/x'))).toEqual({});
  });

  it('keeps HF_TOKEN from the programs that have no business with the Hub (npm, the engine)', () => {
    const env = { PATH: '/bin', HF_TOKEN: 'hf_secret', HF_ENDPOINT: 'https://hub.example' };
    expect(withoutHubToken(env)).toEqual({ PATH: '/bin', HF_ENDPOINT: 'https://hub.example' });
    expect(env.HF_TOKEN).toBe('hf_secret');
  });

  it.each([
    ['ftp://hub.example', /scheme ftp; only http and https/],
    ['file:///srv/hub', /scheme file; only http and https/],
    ['https://user:pass@hub.example', /must not carry a user or password/],
    ['not a url', /HF_ENDPOINT is not a URL/],
  ])('refuses HF_ENDPOINT=%s', (endpoint, message) => {
    expect(() => HubEndpoint.fromEnv({ HF_ENDPOINT: endpoint })).toThrow(message);
  });
});

describe('fileMetadataOf', () => {
  it("reads an LFS file's redirect: the sha256 from X-Linked-Etag, the size from X-Linked-Size, not the redirect's own length", () => {
    expect(
      fileMetadataOf(302, {
        'x-linked-etag': `"${SHA}"`,
        'x-linked-size': '599000000',
        'content-length': '1200',
        'x-repo-commit': 'b'.repeat(40),
        location: 'https://cdn/x',
      }),
    ).toEqual({ sha256: SHA, size: 599000000, commit: 'b'.repeat(40), lfs: true });
    expect(fileMetadataOf(302, { 'content-length': '1200', location: 'https://cdn/x' })).toEqual({ lfs: false });
  });

  it('reads a regular file: its length, and no sha256 from its git blob id or a weak ETag', () => {
    expect(fileMetadataOf(200, { etag: `"${'c'.repeat(40)}"`, 'content-length': '713' })).toEqual({
      size: 713,
      lfs: false,
    });
    expect(fileMetadataOf(302, { 'x-linked-etag': `W/"${SHA.toUpperCase()}"` }).sha256).toBe(SHA);
    expect(fileMetadataOf(302, { 'x-linked-etag': '"not-a-sha"' })).toEqual({ lfs: true });
  });
});

describe('repo names and revisions', () => {
  it.each(['Alibaba-NLP/gte-reranker-modernbert-base', 'bert-base-uncased', 'o/n.v2_x'])('takes %s', (repo) => {
    expect(checkRepoName(repo)).toBe(repo);
  });

  it.each(['../etc', 'o/../../x', 'o/n/extra', '/abs', 'o/', 'o/n.partial', 'o/n.old', '-o/n', 'o/n name', ''])(
    'refuses %j before it names a folder',
    (repo) => {
      expect(() => checkRepoName(repo)).toThrow(/is not a Hugging Face repo id/);
    },
  );

  it.each(['..', '.'])(
    'refuses the revision %j, which a URL would resolve away (.. fetches <repo>/<file>, outside /resolve/)',
    (revision) => {
      expect(() => checkRevision(revision)).toThrow(
        `${JSON.stringify(revision)} is not a revision: a branch, tag or commit id ("." and ".." are steps in a path, not names)`,
      );
    },
  );

  it('takes revisions that merely hold dots, and encoded dots stay encoded', () => {
    for (const revision of ['v1.0', '...', '..x', 'refs/../x', '%2e%2e'])
      expect(checkRevision(revision)).toBe(revision);
    expect(HubEndpoint.fromEnv({}).fileUrl('o/n', '%2e%2e', 'config.json').pathname).toBe(
      '/o/n/resolve/%252e%252e/config.json',
    );
  });

  it('builds no URL that leaves <repo>/resolve/<revision>/, whatever it is handed', () => {
    const hub = HubEndpoint.fromEnv({ HF_ENDPOINT: 'http://127.0.0.1:9/hf', HF_TOKEN: 'hf_secret' });
    for (const revision of ['..', '.'])
      expect(() => hub.fileUrl('o/n', revision, 'config.json')).toThrow(
        /not from o\/n\/resolve\/<revision>\/: refused/,
      );
    expect(() => hub.fileUrl('o/n', 'main', '../../x')).toThrow(/refused/);
  });

  it('takes a branch with a slash and refuses spaces or control characters', () => {
    expect(checkRevision('refs/pr/1')).toBe('refs/pr/1');
    expect(() => checkRevision('main branch')).toThrow(/is not a revision/);
    expect(() => checkRevision('main\n')).toThrow(/is not a revision/);
  });
});
