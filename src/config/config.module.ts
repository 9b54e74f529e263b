import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { PROCESS_ENV, system1Config } from './system1.config';

@Global()
@Module({
  imports: [ConfigModule.forRoot({ ignoreEnvFile: true, load: [system1Config], isGlobal: true })],
  providers: [{ provide: PROCESS_ENV, useValue: process.env }],
  exports: [PROCESS_ENV],
})
export class System1ConfigModule {}
