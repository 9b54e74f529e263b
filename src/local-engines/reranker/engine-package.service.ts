import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PullError } from '../hub/pull-error';
import { ProcessRunner } from '../process/process-runner';
import type { RerankerHome } from './reranker-home';

/** Written into node_modules after a good `npm ci`: the lockfile's sha256, so a changed lockfile reinstalls. */
const INSTALLED_STAMP = path.join('node_modules', '.system1-lock-sha256');

/**
 * The engine's files as its package.json lists them ("files", the same list the installer ships), with the
 * package files npm needs.
 */
function packageFiles(from: string): string[] {
  let files: unknown;
  try {
    files = (JSON.parse(readFileSync(path.join(from, 'package.json'), 'utf8')) as { files?: unknown }).files;
  } catch (error) {
    throw new PullError(
      `this copy of the gateway carries no usable engines/reranker (${path.join(from, 'package.json')}: ` +
        `${(error as NodeJS.ErrnoException).code ?? 'not JSON'}); reinstall it with install.sh`,
    );
  }
  if (!Array.isArray(files) || !files.every((file) => typeof file === 'string'))
    throw new PullError(`${path.join(from, 'package.json')} lists no "files"`);
  return ['package.json', 'package-lock.json', ...files];
}

/** Every regular file under `entry` (itself when it is one), relative to `root`. */
function filesUnder(root: string, entry: string): string[] {
  const full = path.join(root, entry);
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full).flatMap((name) => filesUnder(root, path.join(entry, name)));
}

function sameBytes(a: string, b: string): boolean {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The reranker's own package in the install dir: its files, copied from this copy of the gateway where they
 * are missing or differ (an upgrade brings newer ones), and its dependencies (the ONNX runtime and the
 * tokenizer), installed with `npm ci --omit=dev` from its lockfile. Only `engine pull` does this: nothing is
 * downloaded at install or at start.
 */
@Injectable()
export class EnginePackage {
  constructor(private readonly runner: ProcessRunner) {}

  async prepare(home: RerankerHome, from: string, log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<void> {
    if (!existsSync(from))
      throw new PullError(
        `this copy of the gateway carries no engines/reranker (${from}); reinstall it with install.sh`,
      );
    const copied = packageFiles(from)
      .filter((entry) => existsSync(path.join(from, entry)))
      .flatMap((entry) => filesUnder(from, entry))
      .filter((file) => !sameBytes(path.join(from, file), path.join(home.dir, file)));
    for (const file of copied) {
      mkdirSync(path.dirname(path.join(home.dir, file)), { recursive: true });
      cpSync(path.join(from, file), path.join(home.dir, file));
    }
    if (copied.length > 0) log(`Copied ${copied.length} of the reranker's files into ${home.dir}.`);

    const lock = sha256Of(path.join(home.dir, 'package-lock.json'));
    const stamp = path.join(home.dir, INSTALLED_STAMP);
    if (home.installed && existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return;
    log(
      `Installing the reranker's packages (the ONNX runtime, about 300 MB) with npm ci --omit=dev in ${home.dir} ...`,
    );
    // --prefer-offline: the lockfile pins every version, so npm's cache answers a reinstall without the network.
    const args = ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--no-update-notifier'];
    // npm's warnings on a good install (the .npmrc key npm does not know, install scripts outside allowScripts,
    // EBADENGINE) ask nothing of the user, so its output is shown only when it failed, where it is the reason.
    const result = await this.runner.run('npm', args, { cwd: home.dir, env, capture: true });
    if (result.missing)
      throw new PullError(
        'npm is not on PATH; it comes with Node.js (https://nodejs.org). The model was not downloaded',
      );
    if (result.code !== 0) {
      for (const line of `${result.stdout}${result.stderr}`.trimEnd().split('\n')) log(line);
      throw new PullError(
        `npm ${args.join(' ')} in ${home.dir} failed (exit ${result.code ?? 'by a signal'}); ` +
          'its output is above. The model was not downloaded',
      );
    }
    writeFileSync(stamp, lock);
  }
}
