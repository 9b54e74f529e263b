import { Inject, Injectable } from '@nestjs/common';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { LoadedConfig } from '../../config/config.loader';
import { type Env, PACKAGE_ROOT } from '../../config/paths';
import { system1Config } from '../../config/system1.config';
import { CHOOSE_AN_ENGINE } from '../../decisions/registry/placeholder';
import { installedServerCommand, type SmokeReport, SmokeService } from '../smoke/smoke.service';
import { findRegistration, type Registration, SERVER_NAME } from './claude-registration';
import { loggedDecisions } from './logged-decisions';

export type CheckName = 'registered' | 'starts' | 'health' | 'decisions';

/** One of the Troubleshoot page's questions: `skip` when there is nothing here to check, which is no failure. */
export interface DoctorCheck {
  check: CheckName;
  status: 'pass' | 'fail' | 'skip';
  detail: string;
  /** What to try, on a failure or a skip. */
  fix?: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: DoctorCheck[];
}

/** How many of the last logged decisions are shown. */
const LOGGED = 5;

/** A question every engine takes, asked live so that a doctor run shows a decision even without a log. */
const TRIAL = {
  question: 'Rerun the flaky pipeline or block the merge?',
  options: ['rerun the pipeline', 'block the merge'],
};

/**
 * `system1 doctor`: the Troubleshoot page's four questions from a shell, each with its evidence and the fix to
 * try. Is the server registered with Claude Code? Does the command Claude Code runs start? What does health say,
 * every engine probed? What did the last decisions say? The three last come from one smoke run of that command.
 */
@Injectable()
export class DoctorService {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly smoke: SmokeService,
  ) {}

  async run(env: Env, cwd: string): Promise<DoctorReport> {
    const { check: registered, registration } = this.registered(env, cwd);
    const command = registration?.command ?? installedServerCommand(env).command;
    const smokeEnv = { ...(env as Record<string, string>), ...registration?.env };
    const report = await this.smoke.run({ ...TRIAL, ...(command && { command }), env: smokeEnv });
    const checks = [registered, started(report), healthOf(report), this.decisions(report)];
    return { ok: checks.every((check) => check.status !== 'fail'), checks };
  }

  private registered(env: Env, cwd: string): { check: DoctorCheck; registration?: Registration } {
    const lookup = findRegistration(env, cwd);
    const main = installedServerCommand(env).command?.[1] ?? path.join(PACKAGE_ROOT, 'dist', 'main.js');
    const add = `claude mcp add --scope user --transport stdio ${SERVER_NAME} -- node ${JSON.stringify(main)} mcp`;
    const registration = lookup.found;
    if (!registration) {
      if (lookup.present.length === 0)
        return {
          check: {
            check: 'registered',
            status: 'skip',
            detail:
              "no Claude Code config here (~/.claude.json, ./.mcp.json): another client's registration is not read",
            fix: `with Claude Code, register it: ${add}`,
          },
        };
      return {
        check: {
          check: 'registered',
          status: 'fail',
          detail: `no ${SERVER_NAME} server in ${lookup.present.join(' or ')}`,
          fix: add,
        },
      };
    }
    const where = `${registration.scope} scope in ${registration.file}: ${registration.command.join(' ')}`;
    const missing = registration.command.find((arg) => arg.endsWith('main.js') && !existsSync(arg));
    if (missing)
      return {
        registration,
        check: {
          check: 'registered',
          status: 'fail',
          detail: `registered at ${where}, but ${missing} does not exist (a removed or moved copy)`,
          fix: `claude mcp remove --scope ${registration.scope} ${SERVER_NAME}, then ${add}`,
        },
      };
    return { registration, check: { check: 'registered', status: 'pass', detail: `registered at ${where}` } };
  }

  private decisions(report: SmokeReport): DoctorCheck {
    const live = report.layers.find((layer) => layer.layer === 'decision');
    const file = this.config.gateway.log_file;
    let logged = 'the gateway keeps no log file ([gateway] log_file is unset), so there are no past decisions to read';
    let logFix = 'set [gateway] log_file (or SYSTEM1_LOG_FILE) to keep the decisions clients ask';
    if (file) {
      try {
        const last = loggedDecisions(file, LOGGED);
        logged =
          last.length === 0
            ? `${file} holds no system1_decide decision yet`
            : `the last ${last.length} in ${file}: ` +
              last
                .map((d) => `${d.requestId} ${d.verdict}${d.problems.length ? ` (${d.problems.join('; ')})` : ''}`)
                .join(' | ');
        logFix = '';
      } catch (error) {
        logged = `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
      }
    }
    if (!live) return { check: 'decisions', status: 'fail', detail: `not asked: the server failed earlier. ${logged}` };
    if (!live.ok)
      return {
        check: 'decisions',
        status: 'fail',
        detail: `a trial decision failed: ${live.detail}. ${logged}`,
        fix: 'read each attempt: a timeout (raise timeout_s only if the engine is that slow), an HTTP status or a refused connection (start the engine), a malformed answer (the engine or its model)',
      };
    return {
      check: 'decisions',
      status: 'pass',
      detail: `a trial decision: ${live.detail}. ${logged}`,
      ...(logFix && { fix: logFix }),
    };
  }
}

function started(report: SmokeReport): DoctorCheck {
  const failed = report.layers.find((layer) => !layer.ok && (layer.layer === 'start' || layer.layer === 'handshake'));
  const command = report.command.join(' ');
  if (!failed)
    return { check: 'starts', status: 'pass', detail: `${command}: ${report.layers[1]?.detail ?? 'started'}` };
  const stderr = report.server_stderr ? `; its stderr: ${report.server_stderr.join(' | ')}` : '';
  return {
    check: 'starts',
    status: 'fail',
    detail: `${command}: ${failed.detail}${stderr}`,
    fix:
      failed.layer === 'start'
        ? 'check that Node.js 20+ is on PATH and the copy is built (install.sh installs one; npm run build in a clone)'
        : 'read the stderr above: the server started but did not answer initialize',
  };
}

function healthOf(report: SmokeReport): DoctorCheck {
  const layer = report.layers.find((candidate) => candidate.layer === 'health');
  if (!layer) return { check: 'health', status: 'fail', detail: 'not checked: the server did not start' };
  if (layer.ok) {
    const warned = (report.health?.warnings as string[] | undefined)?.length;
    return { check: 'health', status: 'pass', detail: layer.detail, ...(warned && { fix: CHOOSE_AN_ENGINE }) };
  }
  const status = String(report.health?.status);
  const fix =
    status === 'paused'
      ? 'system1 toggle on'
      : (report.health?.config_errors as unknown[] | undefined)?.length
        ? 'fix the key named (in the file, or its SYSTEM1_* variable)'
        : `start the engine, or set a fallback; or ${CHOOSE_AN_ENGINE}`;
  return { check: 'health', status: 'fail', detail: layer.detail, fix };
}
