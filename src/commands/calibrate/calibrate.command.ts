import { Inject } from '@nestjs/common';
import { SingleBar } from 'cli-progress';
import { Command, CommandRunner, Option } from 'nest-commander';
import { existsSync, writeFileSync } from 'node:fs';
import { CalibrationReport, CalibrationRunner } from './calibration-runner.service';
import { CalibrationService, SHIPPED_FITS } from '../../calibration/calibration.service';
import { FitsInPlace } from '../../calibration/calibration-figures';
import { saveFits } from '../../calibration/fit-store';
import { looseLabelNote, readLabelledData } from './labelled-data';
import { readFailureReason } from '../../common/regular-file';
import { renderReliabilitySvg } from '../../calibration/reliability-plot';
import type { LoadedConfig } from '../../config/config.loader';
import { system1Config } from '../../config/system1.config';
import { ProviderRegistry } from '../../decisions/registry/provider-registry.service';
import { renderCalibrationReport } from './calibration-report.view';
import { fraction, openFraction } from '../option-parsers';
import { DEFAULT_RISK } from '../../calibration/guaranteed-threshold';
import { OutputWriter } from '../output.writer';

interface CalibrateFlags {
  provider?: string;
  targetAccuracy: number;
  risk: number;
  write?: boolean;
  ship?: boolean;
  json?: boolean;
  plot?: string;
}

@Command({
  name: 'calibrate',
  arguments: '<data.jsonl>',
  description: 're-ask every labelled example live, fit a temperature per question, and report how far to trust it',
})
export class CalibrateCommand extends CommandRunner {
  constructor(
    @Inject(system1Config.KEY) private readonly config: LoadedConfig,
    private readonly registry: ProviderRegistry,
    private readonly runner: CalibrationRunner,
    private readonly calibration: CalibrationService,
    private readonly output: OutputWriter,
  ) {
    super();
  }

  async run([data]: string[], flags: CalibrateFlags): Promise<void> {
    if (flags.write && flags.ship) return this.stop('choose one of --write (this machine) and --ship (the package)', 2);
    if (!existsSync(data)) return this.stop(`${data} does not exist`, 2);
    if (this.config.errors.length > 0)
      return this.stop(`the configuration is broken: ${this.config.errors.map((e) => e.message).join('; ')}`, 1);
    const providerName = flags.provider ?? this.config.gateway.provider;
    const { provider, errors } = this.registry.instance(providerName);
    if (!provider)
      return this.stop(`provider ${providerName} cannot run: ${errors.map((e) => e.message).join('; ')}`, 1);
    if (!provider.capabilities().probabilities) {
      return this.stop(
        `${providerName} reports no probabilities (its confidence is self-reported), so there is nothing to calibrate`,
        1,
      );
    }

    let read: ReturnType<typeof readLabelledData>;
    try {
      read = readLabelledData(data);
    } catch (error) {
      return this.stop(`cannot read ${data} (${readFailureReason(error)})`, 2);
    }
    const { examples, problems } = read;
    for (const { line, problem } of problems) this.output.err(`${data}:${line}: skipped: ${problem}`);
    if (examples.length === 0) return this.stop(`${data} has no usable labelled examples`, 1);
    const note = looseLabelNote(examples);
    if (note) this.output.err(`${data}: ${note}`);

    const bar = new SingleBar({
      format: 'calibrate [{bar}] {value}/{total} asked',
      stream: process.stderr,
      hideCursor: true,
    });
    bar.start(examples.length, 0);
    const report = await this.runner
      .run({
        examples,
        problems,
        providerName,
        data,
        targetAccuracy: flags.targetAccuracy,
        risk: flags.risk,
        inPlace: this.fitsInPlace(flags),
        onProgress: (done) => bar.update(done),
      })
      .finally(() => bar.stop());

    const target = flags.ship ? SHIPPED_FITS : flags.write ? this.calibration.userFile : null;
    if (target && report.fits.length > 0) {
      saveFits(target, report.fits);
      // Only this machine's file is the team's: --ship writes the package's, which each machine installs.
      const unshared = flags.write ? await this.calibration.shareUserFits() : undefined;
      if (unshared) this.output.err(`system1 calibrate: warning: ${unshared}`);
      await this.calibration.settled();
    }
    if (flags.plot) this.plot(flags.plot, report);

    if (flags.json)
      this.output.json({
        ...report,
        saved_to: target && report.fits.length > 0 ? target : null,
        plot: flags.plot ?? null,
      });
    else this.output.out(renderCalibrationReport(report, target, flags.plot));
    if (report.rows.answered === 0) this.output.fail(1);
  }

  /** The fits decisions already see, so the overall figures are those after this run's fits are saved. */
  private fitsInPlace(flags: CalibrateFlags): FitsInPlace {
    const { fits } = this.calibration.load();
    return {
      user: fits.filter((fit) => fit.file === this.calibration.userFile),
      shipped: fits.filter((fit) => fit.file === SHIPPED_FITS),
      saveInto: flags.ship ? 'shipped' : 'user',
    };
  }

  private plot(file: string, report: CalibrationReport): void {
    const svg = renderReliabilitySvg({
      title: `${report.provider}${report.model ? ` ${report.model}` : ''} on ${report.data}`,
      before: report.overall_reliability.before,
      after: report.overall_reliability.after,
      thresholds: report.overall?.thresholds ?? [],
    });
    writeFileSync(file, svg);
  }

  private stop(message: string, code: number): void {
    this.output.err(`system1 calibrate: ${message}`);
    this.output.fail(code);
  }

  @Option({ flags: '--provider <name>', description: 'the provider to calibrate (default: the configured primary)' })
  parseProvider(value: string): string {
    return value;
  }

  @Option({
    flags: '--target-accuracy <fraction>',
    description: 'accuracy the recommended threshold must reach',
    defaultValue: 0.8,
  })
  parseTarget(value: string): number {
    return fraction(value);
  }

  @Option({
    flags: '--risk <fraction>',
    description: 'the chance the recommended threshold may miss the target accuracy on new decisions',
    defaultValue: DEFAULT_RISK,
  })
  parseRisk(value: string): number {
    return openFraction(value);
  }

  @Option({ flags: '--write', description: "save the fits for this machine (the install dir's calibration.json)" })
  parseWrite(): boolean {
    return true;
  }

  @Option({ flags: '--ship', description: "save the fits into the package's calibration/calibration.json" })
  parseShip(): boolean {
    return true;
  }

  @Option({ flags: '--json', description: 'print one JSON document' })
  parseJson(): boolean {
    return true;
  }

  @Option({ flags: '--plot <file.svg>', description: 'draw a reliability diagram and the coverage/accuracy curve' })
  parsePlot(value: string): string {
    return value;
  }
}
