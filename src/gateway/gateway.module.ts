import { Module } from '@nestjs/common';
import { CalibrationModule } from '../calibration/calibration.module';
import { ProvidersModule } from '../providers/providers.module';
import { CapabilitiesService } from './capabilities.service';
import { ConfigStatus } from './config-status.service';
import { GatewayService } from './gateway.service';
import { HealthService } from './health.service';
import { PauseState } from './pause-state.service';
import { SchemaService } from './schema/schema.service';

const SERVICES = [GatewayService, HealthService, CapabilitiesService, ConfigStatus, PauseState, SchemaService];

@Module({
  imports: [ProvidersModule, CalibrationModule],
  providers: SERVICES,
  exports: SERVICES,
})
export class GatewayModule {}
