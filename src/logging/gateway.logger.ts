import { type LoggerService, type LogLevel as NestLevel } from '@nestjs/common';
import { closeSync } from 'node:fs';
import { format } from 'node:util';
import { readFailureReason } from '../common/regular-file';
import type { LogLevel } from '../config/config-keys';
import { escapeControlCharacters } from './control-characters';
import { openLogForAppend, writeToLog } from './log-file';

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
const FRAMEWORK_CONTEXTS = new Set([
  'InstanceLoader',
  'NestFactory',
  'NestApplication',
  'RoutesResolver',
  'RouterExplorer',
]);

/**
 * Writes every log line to stderr (stdout carries JSON-RPC for `mcp` and one document for `--json`), and
 * to `log_file` when set. Plain text, one line per record, no colours, so files and terminals read alike:
 * every record is escaped here (see escapeControlCharacters), whatever a request or an engine put in it.
 * The file is written synchronously, so a hook's lines are on disk before it exits.
 */
export class GatewayLogger implements LoggerService {
  private enabled = new Set<NestLevel>(ENABLED.INFO);
  private file?: { path: string; fd: number };

  constructor(private stderr: (line: string) => void = (line) => process.stderr.write(line)) {}

  /**
   * For the servers, which log a line per request: the lines of one turn of the event loop go to stderr as one
   * text in one write. A cork alone (TurnCork) joins them only on a stream that writes vectors (a pipe): on a
   * file or /dev/null each corked line was still a write of its own, a tenth of a busy stdio server's time.
   * What is held when the process exits is written then. Commands keep one write per line, in step with
   * what they print on stdout.
   */
  linesPerTurn(): void {
    const write = this.stderr;
    let held: string[] | undefined;
    const release = () => {
      if (!held) return;
      const lines = held;
      held = undefined;
      write(lines.join(''));
    };
    process.on('exit', release);
    this.stderr = (line) => {
      if (held) return void held.push(line);
      held = [line];
      setImmediate(release);
    };
  }

  configure(level: LogLevel, logFile: string): void {
    this.enabled = new Set(ENABLED[level]);
    if (this.file?.path === logFile) return;
    this.closeFile();
    if (logFile) this.openFile(logFile);
  }

  setLogLevels(levels: NestLevel[]): void {
    this.enabled = new Set(levels);
  }

  /** Whether a record of `level` is written: a caller skips building a line nobody reads (DEBUG's, at INFO). */
  writes(level: NestLevel): boolean {
    return this.enabled.has(level);
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
    // Most records are one string (a line per decision at INFO): no list to build for them.
    const text =
      rest.length === 0 && typeof message === 'string'
        ? message
        : [message, ...rest.filter((part) => part !== undefined)]
            .map((part) => (typeof part === 'string' ? part : format('%o', part)))
            .join(' ');
    this.emit(`${LABEL[level].padEnd(5)} ${context ? `[${context}] ` : ''}${text}`);
  }

  /** The one place a record becomes a line: stamped, escaped to a single line, to stderr and the file. */
  private emit(record: string, toFile = true): void {
    const line = `${new Date().toISOString()} ${escapeControlCharacters(record)}\n`;
    this.stderr(line);
    if (!toFile || !this.file) return;
    try {
      writeToLog(this.file.fd, line);
    } catch (error) {
      // A log file that cannot be written must not take the server down: say so once, keep stderr.
      const logFile = this.file.path;
      this.closeFile();
      this.emit(`WARN  [Logger] cannot write log_file ${logFile}: ${readFailureReason(error)}`, false);
    }
  }

  private openFile(logFile: string): void {
    try {
      this.file = { path: logFile, fd: openLogForAppend(logFile) };
    } catch (error) {
      this.emit(`WARN  [Logger] cannot open log_file ${logFile}: ${readFailureReason(error)}`, false);
    }
  }

  private closeFile(): void {
    if (!this.file) return;
    const { fd } = this.file;
    this.file = undefined;
    try {
      closeSync(fd);
    } catch {
      // already gone: nothing to release
    }
  }
}

/** The process's logger, given to Nest at start-up and configured once the config is loaded. */
export const gatewayLogger = new GatewayLogger();
