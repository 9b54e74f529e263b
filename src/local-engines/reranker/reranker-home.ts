import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { installDir, PACKAGE_ROOT } from '../../config/paths';

/**
 * The default model `engine pull reranker` fetches: the cross-encoder the naga study measured (spec
 * gateway-docs, "Which model for naga decisions": untuned, 75 of 150 TEST3 requests right first on all 90
 * tools, 1.1 s a decision), whose Hub repo hosts a float32 ONNX export (onnx/model.onnx) and tokenizer.json.
 */
export const DEFAULT_RERANKER_REPO = 'Alibaba-NLP/gte-reranker-modernbert-base';

/** The engine's files in this copy of the gateway (the installer ships them; a clone has them too). */
export const APP_RERANKER = path.join(PACKAGE_ROOT, 'engines', 'reranker');

/**
 * Where the reranker lives in the install dir: its files and packages, the models pulled into `models/`, the
 * launcher's log, and the pid file of the server `engine start` launched.
 */
export class RerankerHome {
  constructor(readonly dir: string) {}

  static of(env: Readonly<Record<string, string | undefined>>): RerankerHome {
    return new RerankerHome(path.join(installDir(env), 'engines', 'reranker'));
  }

  get models(): string {
    return path.join(this.dir, 'models');
  }

  get launcher(): string {
    return path.join(this.dir, 'start.js');
  }

  /** The engine's self-timing on a model folder (`--json`: the timing object its /health reports). */
  get timer(): string {
    return path.join(this.dir, 'time.js');
  }

  /** The server the launcher starts: a process running it from this folder is ours. */
  get server(): string {
    return path.join(this.dir, 'serve.js');
  }

  get pidFile(): string {
    return path.join(this.dir, 'reranker.pid');
  }

  get log(): string {
    return path.join(this.dir, 'reranker.log');
  }

  /** The launcher and the packages it needs (what `npm ci` installs) are in place. */
  get installed(): boolean {
    return (
      existsSync(this.launcher) &&
      ['onnxruntime-node', '@huggingface/tokenizers'].every((name) =>
        existsSync(path.join(this.dir, 'node_modules', name)),
      )
    );
  }
}
