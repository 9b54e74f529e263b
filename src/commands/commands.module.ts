import { Module } from '@nestjs/common';
import { McpModule } from '../mcp/mcp.module';
import { SmokeService } from './smoke/smoke.service';
import { OpenAiRouterModule } from '../openai-router/openai-router.module';
import { CalibrateCommand } from './calibrate/calibrate.command';
import { CalibrationRunner } from './calibrate/calibration-runner.service';
import { EngineCommand } from './engine/engine.command';
import { EnginePullCommand } from './engine/engine-pull.command';
import { EngineStartCommand } from './engine/engine-start.command';
import { EngineStopCommand } from './engine/engine-stop.command';
import { LocalEnginesModule } from '../local-engines/local-engines.module';
import { DoctorCommand } from './doctor/doctor.command';
import { DoctorService } from './doctor/doctor.service';
import { EvaluateCommand } from './evaluate.command';
import { LabelCommand } from './label.command';
import { McpCommand } from './mcp.command';
import { OutcomesCommand } from './outcomes.command';
import { OutputWriter } from './output.writer';
import { RouterReportCommand } from './router-report.command';
import { SchemaCommand } from './schema.command';
import { ServeHttpCommand } from './serve-http.command';
import { DecisionsApiParts } from './decisions-api-parts';
import { ServeHttpParts } from './serve-http-parts';
import { ServeOpenAiCommand } from './serve-openai.command';
import { SessionCheckCommand } from './session-check.command';
import { SmokeCommand } from './smoke/smoke.command';
import { ToggleCommand } from './toggle.command';
import { UsageReportCommand } from './usage-report.command';

@Module({
  imports: [McpModule, OpenAiRouterModule, LocalEnginesModule],
  providers: [
    CalibrationRunner,
    OutputWriter,
    SmokeService,
    McpCommand,
    SmokeCommand,
    DoctorService,
    DoctorCommand,
    ToggleCommand,
    SchemaCommand,
    CalibrateCommand,
    OutcomesCommand,
    LabelCommand,
    EvaluateCommand,
    UsageReportCommand,
    SessionCheckCommand,
    ServeOpenAiCommand,
    ServeHttpCommand,
    ServeHttpParts,
    DecisionsApiParts,
    RouterReportCommand,
    EngineCommand,
    EnginePullCommand,
    EngineStartCommand,
    EngineStopCommand,
  ],
})
export class CommandsModule {}
