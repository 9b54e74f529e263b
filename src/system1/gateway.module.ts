import { Module } from '@nestjs/common';
import { CalibrationModule } from '../calibration/calibration.module';
import { ProvidersModule } from '../providers/providers.module';
import { CapabilitiesService } from '../mcp/capabilities.service';
import { ConfigStatus } from '../decisions/config-status.service';
import { GatewayService } from '../mcp/decide/decide.service';
import { HealthService } from '../decisions/health.service';
import { PauseState } from '../decisions/pause-state.service';
import { SchemaService } from '../mcp/schema/schema.service';

const SERVICES = [GatewayService, HealthService, CapabilitiesService, ConfigStatus, PauseState, SchemaService];

@Module({
  imports: [ProvidersModule, CalibrationModule],
  providers: SERVICES,
  exports: SERVICES,
})
export class GatewayModule {}
