/**
 * Structured JSON logging (winston). A `silent` level exists so tests and the CLI can mute it.
 * Callers pass fields, never raw headers: the access log builds its own allow-listed record, so
 * the Authorization header and request bodies cannot reach a log line.
 * @module
 */
import winston from 'winston';

/** The logger type used across the gateway. */
export type Logger = winston.Logger;

/** Create a JSON logger at `level` (`silent` mutes everything). */
export function createLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console({ stderrLevels: ['error', 'warn'] });
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json()),
    defaultMeta: { service: 'switchyard' },
    transports: [transport],
  });
}
