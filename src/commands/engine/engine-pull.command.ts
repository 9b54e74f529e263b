import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { formatBytes } from '../../common/byte-count';
import { HubEndpoint, withoutHubToken } from '../../local-engines/hub/hub-endpoint';
import { ModelPuller } from '../../local-engines/hub/model-pull.service';
import { MODEL_FILE, type ModelVariant } from '../../local-engines/hub/pull-manifest';
import { PullError } from '../../local-engines/hub/pull-error';
import { checkRepoName, checkRevision } from '../../local-engines/hub/repo-name';
import { EnginePackage } from '../../local-engines/reranker/engine-package.service';
import { EngineTimer } from '../../local-engines/reranker/engine-timer.service';
import { describeTiming } from '../../local-engines/reranker/engine-timing';
import { chooseVariant, thisCpu, type VariantChoice } from '../../local-engines/reranker/model-variant-choice';
import { APP_RERANKER, DEFAULT_RERANKER_REPO, RerankerHome } from '../../local-engines/reranker/reranker-home';
import { byteSize } from '../option-parsers';
import { OutputWriter } from '../output.writer';
import { unmanagedEngine } from './engine-name';

interface PullFlags {
  revision: string;
  quantized?: boolean;
  float32?: boolean;
  maxFileSize?: number;
}

/** How the output names a variant's file: its path and its weights. */
const modelFile = (variant: ModelVariant): string => `${MODEL_FILE[variant].path}, ${MODEL_FILE[variant].weights}`;

/**
 * One file of a model is at most this unless --max-file-size says otherwise (gte-reranker's float32 export: 599 MB).
 */
const DEFAULT_MAX_FILE_BYTES = 2 * 1024 ** 3;

/**
 * `system1 engine pull reranker [REPO]`: installs the reranker's packages in the install dir (npm ci, only
 * here), then downloads the repo's ONNX export (see ModelPuller for the Hub's metadata it checks against)
 * into `<install dir>/engines/reranker/models/<repo>`: int8 where the CPU has integer dot-product instructions,
 * else float32 (model-variant-choice.ts), then runs the engine's self-timing on it and says what a decision costs.
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
    private readonly timer: EngineTimer,
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
    if (flags.quantized && flags.float32) {
      this.output.err('system1 engine pull: --quantized and --float32 ask for opposite files: pass one of them');
      return this.output.fail(2);
    }
    const env = process.env;
    const home = RerankerHome.of(env);
    const choice = chooseVariant(flags, thisCpu());
    try {
      // What the user typed is checked before npm installs anything (the puller checks it again, for itself).
      checkRepoName(repo);
      checkRevision(flags.revision);
      const origin = HubEndpoint.fromEnv(env).origin;
      await this.enginePackage.prepare(home, APP_RERANKER, (line) => this.output.err(line), withoutHubToken(env));
      this.output.out(`Model file: ${modelFile(choice.variant)} (${choice.why}).`);
      const { folder, manifest, upToDate } = await this.pullChosen(repo, choice, {
        revision: flags.revision,
        maxFileBytes: flags.maxFileSize ?? DEFAULT_MAX_FILE_BYTES,
        origin,
        home,
      });
      const at = manifest.commit ? `commit ${manifest.commit.slice(0, 12)}` : `revision ${manifest.revision}`;
      const bytes = manifest.files.reduce((sum, file) => sum + file.bytes, 0);
      this.output.out(
        upToDate
          ? `${repo} at ${at} is already in ${folder}: nothing to download.`
          : `Pulled ${repo} at ${at} into ${folder} (${manifest.files.length} files, ${formatBytes(bytes)}).`,
      );
      await this.reportTiming(home, folder);
      this.output.out('Start it with: system1 engine start reranker');
    } catch (error) {
      if (!(error instanceof PullError)) throw error;
      this.output.err(`system1 engine pull: ${error.message}`);
      this.output.fail(1);
    }
  }

  /**
   * The chosen file; when int8 was the CPU's choice (not a flag's) and the repo has no int8 export, float32
   * instead, saying so: every cross-encoder repo hosts model.onnx, fewer the Hub's model_quantized.onnx.
   */
  private async pullChosen(
    repo: string,
    choice: VariantChoice,
    where: { revision: string; maxFileBytes: number; origin: string; home: RerankerHome },
  ) {
    const pull = (variant: VariantChoice['variant']) => {
      this.output.err(`Pulling ${repo} (${modelFile(variant)}) at ${where.revision} from ${where.origin} ...`);
      return this.puller.pull({
        repo,
        revision: where.revision,
        variant,
        maxFileBytes: where.maxFileBytes,
        modelsDir: where.home.models,
        env: process.env,
        log: (line) => this.output.err(line),
      });
    };
    try {
      return await pull(choice.variant);
    } catch (error) {
      const noInt8 = error instanceof PullError && error.missingFile === MODEL_FILE.quantized.path;
      if (!noInt8 || choice.forced) throw error;
      this.output.out(`${repo} has no int8 export (${MODEL_FILE.quantized.path}): pulling float32 instead.`);
      return pull('float32');
    }
  }

  /** The engine's self-timing on the pulled model, in words; a timing that fails is said, and the pull stands. */
  private async reportTiming(home: RerankerHome, folder: string): Promise<void> {
    this.output.err('Timing a few decisions on this model, on this machine ...');
    const outcome = await this.timer.time(home, folder, withoutHubToken(process.env));
    if (outcome.kind === 'timed') return this.output.out(describeTiming(outcome.timing));
    this.output.err(
      `system1 engine pull: the engine's self-timing failed (${outcome.why}); the model is pulled, ` +
        'and the engine times itself again when it starts',
    );
  }

  @Option({ flags: '--revision <rev>', description: 'the branch, tag or commit to pull', defaultValue: 'main' })
  parseRevision(value: string): string {
    return value;
  }

  @Option({
    flags: '--quantized',
    description:
      'pull the int8 export (onnx/model_quantized.onnx: smaller and faster on a CPU, its accuracy not measured ' +
      'here) whatever the CPU; by default int8 only where the CPU has integer dot-product instructions',
  })
  parseQuantized(): boolean {
    return true;
  }

  @Option({
    flags: '--float32',
    description: 'pull the float32 export (onnx/model.onnx) whatever the CPU',
  })
  parseFloat32(): boolean {
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
