import { Module } from '@nestjs/common';
import { CalibrationModule } from '../calibration/calibration.module';
import { GatewayModule } from '../system1/gateway.module';
import { McpModule } from '../mcp/mcp.module';
import { ProvidersModule } from '../providers/providers.module';
import { SmokeService } from './smoke/smoke.service';
import { StructuredModule } from '../openai-router/structured.module';
import { CalibrateCommand } from './calibrate/calibrate.command';
import { EvaluateCommand } from './evaluate.command';
import { McpCommand } from './mcp.command';
import { OutcomesCommand } from './outcomes.command';
import { OutputWriter } from './output.writer';
import { RouterReportCommand } from './router-report.command';
import { SchemaCommand } from './schema.command';
import { ServeOpenAiCommand } from './serve-openai.command';
import { SessionCheckCommand } from './session-check.command';
import { SmokeCommand } from './smoke/smoke.command';
import { ToggleCommand } from './toggle.command';
import { UsageReportCommand } from './usage-report.command';

@Module({
  imports: [GatewayModule, McpModule, CalibrationModule, ProvidersModule, StructuredModule],
  providers: [OutputWriter, SmokeService, McpCommand, SmokeCommand, ToggleCommand, SchemaCommand, CalibrateCommand, OutcomesCommand, EvaluateCommand, UsageReportCommand, SessionCheckCommand, ServeOpenAiCommand, RouterReportCommand],
})
export class CommandsModule {}
