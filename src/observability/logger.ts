/**
 * Structured JSON logging (winston). A `silent` level exists so tests and the CLI can mute it.
 * Callers pass fields, never raw headers: the access log builds its own allow-listed record, so
 * the Authorization header and request bodies cannot reach a log line.
 * @module
 */
import winston from 'winston';

/** The logger type used across the gateway. */
export type Logger = winston.Logger;

const MESSAGE = Symbol.for('message');

/** Where a logger's lines go and how they are formatted, for {@link logInfoLine}. */
interface Sink {
  format: winston.Logform.Format;
  write: (line: string) => void;
}
const sinks = new WeakMap<Logger, Sink>();

function lineFormat(): winston.Logform.Format {
  return winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json());
}

/** Create a JSON logger at `level` (`silent` mutes everything). */
export function createLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console({ stderrLevels: ['error', 'warn'] });
  const logger = winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: lineFormat(),
    defaultMeta: { service: 'switchyard' },
    transports: [transport],
  });
  const out = stream ?? process.stdout;
  sinks.set(logger, { format: lineFormat(), write: (line) => void out.write(`${line}\n`) });
  return logger;
}

/**
 * `logger.info(message, fields)` for the one line every request writes (the access log), with
 * the same winston format and destination but without the logger's object-mode stream pipeline
 * and transport hand-off per call, which cost about a tenth of a request's CPU. Loggers not
 * made by {@link createLogger} take the ordinary path.
 */
export function logInfoLine(logger: Logger, message: string, fields: Record<string, unknown>): void {
  const sink = sinks.get(logger);
  if (!sink) {
    logger.info(message, fields);
    return;
  }
  if (logger.silent || !logger.isInfoEnabled()) return;
  const info = sink.format.transform({ ...logger.defaultMeta, ...fields, level: 'info', message }) as winston.Logform.TransformableInfo | false;
  if (info) sink.write(String((info as Record<symbol, unknown>)[MESSAGE]));
}
