import { Module } from '@nestjs/common';
import { CalibrationRunner } from './calibration-runner.service';
import { CalibrationService } from './calibration.service';

@Module({ providers: [CalibrationService, CalibrationRunner], exports: [CalibrationService, CalibrationRunner] })
export class CalibrationModule {}
