import { Module } from '@nestjs/common';
import { DownloadProgress, TerminalProgress } from './hub/download-progress';
import { FileDownloader } from './hub/file-download.service';
import { HubHttpClient } from './hub/hub-http.client';
import { ModelPuller } from './hub/model-pull.service';
import { ProcessRunner } from './process/process-runner';
import { ProcessTable } from './process/process-table';
import { EngineConfig } from './reranker/engine-config.service';
import { EnginePackage } from './reranker/engine-package.service';
import { EngineTimer } from './reranker/engine-timer.service';
import { RerankerHealth } from './reranker/reranker-health';
import { RerankerProcesses } from './reranker/reranker-process.service';

const SERVICES = [
  HubHttpClient,
  FileDownloader,
  ModelPuller,
  ProcessRunner,
  ProcessTable,
  EnginePackage,
  RerankerHealth,
  RerankerProcesses,
  EngineConfig,
  EngineTimer,
];

/** Local engines the CLI manages: pulling a model from a Hub, and starting and stopping the reranker. */
@Module({
  providers: [...SERVICES, { provide: DownloadProgress, useClass: TerminalProgress }],
  exports: [...SERVICES, DownloadProgress],
})
export class LocalEnginesModule {}
