import { Module } from '@nestjs/common';
import { CalibrationModule } from '../calibration/calibration.module';
import { GatewayModule } from '../gateway/gateway.module';
import { ProvidersModule } from '../providers/providers.module';
import { FeatureReader } from './feature-reader.service';
import { RouteHookService } from './route-hook.service';
import { SkillPicker } from './skill-picker.service';
import { SpawnRecorder } from './spawn-recorder.service';

@Module({
  imports: [GatewayModule, ProvidersModule, CalibrationModule],
  providers: [FeatureReader, SkillPicker, RouteHookService, SpawnRecorder],
  exports: [RouteHookService, SpawnRecorder],
})
export class RoutingModule {}
