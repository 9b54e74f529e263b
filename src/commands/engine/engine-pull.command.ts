import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { formatBytes } from '../../common/byte-count';
import { HubEndpoint, withoutHubToken } from '../../local-engines/hub/hub-endpoint';
import { ModelPuller } from '../../local-engines/hub/model-pull.service';
import { PullError } from '../../local-engines/hub/pull-error';
import { checkRepoName, checkRevision } from '../../local-engines/hub/repo-name';
import { EnginePackage } from '../../local-engines/reranker/engine-package.service';
import { APP_RERANKER, DEFAULT_RERANKER_REPO, RerankerHome } from '../../local-engines/reranker/reranker-home';
import { byteSize } from '../option-parsers';
import { OutputWriter } from '../output.writer';
import { unmanagedEngine } from './engine-name';

interface PullFlags {
  revision: string;
  quantized?: boolean;
  maxFileSize?: number;
}

/**
 * One file of a model is at most this unless --max-file-size says otherwise (gte-reranker's float32 export: 599 MB).
 */
const DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3;

/**
 * `system1 engine pull reranker [REPO]`: installs the reranker's packages in the install dir (npm ci, only
 * here), then downloads the repo's ONNX export (see ModelPuller for the Hub's metadata it checks against)
 * into `<install dir>/engines/reranker/models/<repo>`.
 */
@SubCommand({
  name: 'pull',
  arguments: '<engine> [repo]',
  description:
    'download a cross-encoder exported to ONNX from a Hugging Face Hub layout (HF_ENDPOINT, HF_TOKEN) ' +
    `into the install dir, installing the engine's packages first (default repo: ${DEFAULT_RERANKER_REPO})`,
})
export class EnginePullCommand extends CommandRunner {
  constructor(
    private readonly enginePackage: EnginePackage,
    private readonly puller: ModelPuller,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([engine, repo = DEFAULT_RERANKER_REPO]: string[], flags: PullFlags): Promise<void> {
    const refused = unmanagedEngine(engine);
    if (refused) {
      this.output.err(`system1 engine pull: ${refused}`);
      return this.output.fail(2);
    }
    const env = process.env;
    const home = RerankerHome.of(env);
    const variant = flags.quantized ? 'quantized' : 'float32';
    try {
      // What the user typed is checked before npm installs anything (the puller checks it again, for itself).
      checkRepoName(repo);
      checkRevision(flags.revision);
      const origin = HubEndpoint.fromEnv(env).origin;
      await this.enginePackage.prepare(home, APP_RERANKER, (line) => this.output.err(line), withoutHubToken(env));
      this.output.err(
        `Pulling ${repo} ` +
          `(${variant === 'float32' ? 'onnx/model.onnx, float32' : 'onnx/model_quantized.onnx, int8'}) ` +
          `at ${flags.revision} from ${origin} ...`,
      );
      const { folder, manifest, upToDate } = await this.puller.pull({
        repo,
        revision: flags.revision,
        variant,
        maxFileBytes: flags.maxFileSize ?? DEFAULT_MAX_FILE_BYTES,
        modelsDir: home.models,
        env,
        log: (line) => this.output.err(line),
      });
      const at = manifest.commit ? `commit ${manifest.commit.slice(0, 12)}` : `revision ${manifest.revision}`;
      const bytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
      this.output.out([
        upToDate
          ? `${repo} at ${at} is already in ${folder}: nothing to download.`
          : `Pulled ${repo} at ${at} into ${folder} (${manifest.files.length} files, ${formatBytes(bytes)}).`,
        'Start it with: system1 engine start reranker',
      ]);
    } catch (error) {
      if (!(error instanceof PullError)) throw error;
      this.output.err(`system1 engine pull: ${error.message}`);
      this.output.fail(1);
    }
  }

  @Option({ flags: '--revision <rev>', description: 'the branch, tag or commit to pull', defaultValue: 'main' })
  parseRevision(value: string): string {
    return value;
  }

  @Option({
    flags: '--quantized',
    description:
      'pull the int8 export (onnx/model_quantized.onnx: smaller and faster on a CPU, ' +
      'its accuracy not measured here) instead of float32 onnx/model.onnx',
  })
  parseQuantized(): boolean {
    return true;
  }

  @Option({
    flags: '--max-file-size <size>',
    description: 'refuse any file larger than this, before and while it downloads (default 2GiB; e.g. 500MB, 4GiB)',
  })
  parseMaxFileSize(value: string): number {
    return byteSize(value);
  }
}
