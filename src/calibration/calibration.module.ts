import { Module } from '@nestjs/common';
import { CalibrationRunner } from '../commands/calibrate/calibration-runner.service';
import { CalibrationService } from './calibration.service';

@Module({ providers: [CalibrationService, CalibrationRunner], exports: [CalibrationService, CalibrationRunner] })
export class CalibrationModule {}
