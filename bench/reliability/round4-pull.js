// Round four, item 5: `system1 engine pull reranker REPO --revision ..` (and `.`) against a fake Hugging Face
// Hub on loopback (dist-fakes' HfHubFake, the test suites' fake): which requests reached the Hub outside
// `<repo>/resolve/`, and how many carried HF_TOKEN. npm is a stand-in on PATH that makes the two package folders
// the engine's check looks for, so the pull goes as far as it would after a real install; nothing leaves loopback.
'use strict';
const { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { launch, sandbox } = require('./child');

const ROOT = path.resolve(__dirname, '..', '..');
const REPO = 'tiny-org/gated-reranker';
const TOKEN = 'hf_reliability_revision_token_7d21';

/** A gated repo of three small files on the fake Hub. */
async function fakeHub(box) {
  const { HfHubFake } = require(path.join(ROOT, 'dist-fakes', 'hf-hub.fake.js'));
  const source = path.join(box.dir, 'repo');
  mkdirSync(path.join(source, 'onnx'), { recursive: true });
  writeFileSync(path.join(source, 'config.json'), JSON.stringify({ model_type: 'bert' }));
  writeFileSync(path.join(source, 'tokenizer.json'), JSON.stringify({ model: { vocab: { a: 0 } } }));
  writeFileSync(path.join(source, 'onnx', 'model.onnx'), Buffer.alloc(4096, 7));
  return new HfHubFake().addRepo(REPO, source, { token: TOKEN }).start();
}

/** An `npm` first on PATH that records its runs and "installs" empty package folders. */
function npmStandIn(box) {
  const bin = path.join(box.dir, 'bin');
  const calls = path.join(box.dir, 'npm-calls');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh\necho "npm $*" >> ${JSON.stringify(calls)}\n` +
      'mkdir -p node_modules/onnxruntime-node node_modules/@huggingface/tokenizers\n',
  );
  chmodSync(path.join(bin, 'npm'), 0o755);
  const runs = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0);
  return { bin, runs };
}

/** `engine pull reranker REPO --revision` each of `..` and `.`, with HF_TOKEN set: what the Hub saw. */
async function revisionDotSegments(main) {
  const outcomes = {};
  for (const revision of ['..', '.']) {
    const box = sandbox();
    const hub = await fakeHub(box);
    try {
      const npm = npmStandIn(box);
      const pull = launch(main, ['engine', 'pull', 'reranker', REPO, '--revision', revision], {
        env: box.env({
          PATH: `${npm.bin}${path.delimiter}${process.env.PATH}`,
          HF_ENDPOINT: hub.hub.href,
          HF_TOKEN: TOKEN,
          // Should the stand-in be passed over, npm itself stays on loopback.
          npm_config_offline: 'true',
          npm_config_registry: 'http://127.0.0.1:9/',
        }),
        cwd: box.dir,
        killAfterMs: 30_000,
      });
      pull.child.stdin.end();
      const done = await pull.done;
      outcomes[revision] = {
        ended: done.ended,
        hub_requests: hub.hits.length,
        outside_resolve: hub.hits.filter((hit) => !hit.path.includes('/resolve/')).map((hit) => hit.path),
        sent_token: hub.hits.filter((hit) => hit.authorization !== undefined).length,
        npm_runs: npm.runs(),
        error_names_revision: done.stderr.includes(`${JSON.stringify(revision)} is not a revision`),
        token_in_output: `${done.stdout}${done.stderr}`.includes(TOKEN),
      };
    } finally {
      await hub.stop();
      box.dispose();
    }
  }
  return outcomes;
}

module.exports = { pull_revision_dot_segments: revisionDotSegments };
