import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { gatewayLogger } from '../logging/gateway.logger';
import { McpAppModule } from './mcp-app.module';
import { McpServerService } from '../mcp/mcp-server.service';
import { type LeanStart, logCodeCache } from './lean-start';
import { serverHeap } from './server-heap';

/** `system1 mcp`: a plain application context with only the server's modules, until stdin closes. */
export async function serveMcp(start: LeanStart): Promise<void> {
  const app = await NestFactory.createApplicationContext(McpAppModule, { logger: gatewayLogger, abortOnError: false });
  logCodeCache(start);
  serverHeap.serving();
  gatewayLogger.linesPerTurn();
  try {
    await app.get(McpServerService).serveStdio();
  } finally {
    await app.close();
  }
}

export { reportStartFailure } from './lean-start';
