import { LoggerService, LogLevel as NestLevel } from '@nestjs/common';
import { createWriteStream, WriteStream } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import type { LogLevel } from '../config/config-keys';
import { ensureDir } from '../config/ensure-dir';

const ENABLED: Record<LogLevel, NestLevel[]> = {
  DEBUG: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  INFO: ['fatal', 'error', 'warn', 'log'],
  WARNING: ['fatal', 'error', 'warn'],
  ERROR: ['fatal', 'error'],
};

const LABEL: Record<NestLevel, string> = {
  fatal: 'FATAL',
  error: 'ERROR',
  warn: 'WARN',
  log: 'INFO',
  debug: 'DEBUG',
  verbose: 'DEBUG',
};

/** Nest's start-up chatter; useful only when debugging the container itself. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'NestFactory', 'NestApplication', 'RoutesResolver', 'RouterExplorer']);

/**
 * Writes every log line to stderr (stdout carries JSON-RPC for `mcp` and one document for `--json`), and
 * to `log_file` when set. Plain text, one line per record, no colours, so files and terminals read alike.
 */
export class GatewayLogger implements LoggerService {
  private enabled = new Set<NestLevel>(ENABLED.INFO);
  private file?: WriteStream;

  constructor(private readonly stderr: (line: string) => void = (line) => process.stderr.write(line)) {}

  configure(level: LogLevel, logFile: string): void {
    this.enabled = new Set(ENABLED[level]);
    if (logFile) this.openFile(logFile);
  }

  setLogLevels(levels: NestLevel[]): void {
    this.enabled = new Set(levels);
  }

  log(message: unknown, ...rest: unknown[]) {
    this.write('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(level: NestLevel, message: unknown, rest: unknown[]): void {
    if (!this.enabled.has(level)) return;
    // Nest passes the context as the last string argument, and for errors the stack just before it.
    const context = typeof rest.at(-1) === 'string' ? (rest.pop() as string) : undefined;
    if (context && FRAMEWORK_CONTEXTS.has(context) && !this.enabled.has('debug')) return;
    const text = [message, ...rest.filter((part) => part !== undefined)]
      .map((part) => (typeof part === 'string' ? part : format('%o', part)))
      .join(' ');
    const line = `${new Date().toISOString()} ${LABEL[level].padEnd(5)} ${context ? `[${context}] ` : ''}${text.replace(/\r?\n/g, '\n    ')}\n`;
    this.stderr(line);
    this.file?.write(line);
  }

  private openFile(logFile: string): void {
    try {
      ensureDir(path.dirname(logFile));
      this.file = createWriteStream(logFile, { flags: 'a' });
      // A log file that cannot be written must not take the server down: say so once, keep stderr.
      this.file.on('error', (error: NodeJS.ErrnoException) => {
        this.file = undefined;
        this.stderr(`${new Date().toISOString()} WARN  [Logger] cannot write log_file ${logFile}: ${error.code ?? error.name}\n`);
      });
    } catch (error) {
      this.stderr(`${new Date().toISOString()} WARN  [Logger] cannot open log_file ${logFile}: ${(error as NodeJS.ErrnoException).code}\n`);
    }
  }
}

/** The process's logger, given to Nest at start-up and configured once the config is loaded. */
export const gatewayLogger = new GatewayLogger();
