/**
 * Structured JSON logging (winston). A `silent` level exists so tests and the CLI can mute it.
 * Callers pass fields, never raw headers: the access log builds its own allow-listed record, so
 * the Authorization header and request bodies cannot reach a log line. An Error among the fields
 * (`logger.warn('...', { err })`) is written as its name, message, stack and code
 * ({@link errorsInFields}), so no call site can log an error as `{}`.
 * @module
 */
import winston from 'winston';
import { errorFields, isError } from './error-fields';

/** The logger type used across the gateway. */
export type Logger = winston.Logger;

/**
 * Access-log lines gathered into one write: under load, one syscall for many requests instead of
 * one each (stdout is a pipe, written synchronously). With `flushMs` 0 the lines of one event-loop
 * turn leave at its end; with `flushMs` > 0 they wait up to that long, which costs the gateway less:
 * each write to a pipe wakes its reader (the container runtime's log collector).
 * Pending lines are also written once {@link MAX_PENDING} characters wait, and at process exit.
 */
class LineBuffer {
  private pending = '';
  private scheduled = false;
  /** The logger level {@link infoOn} last answered for, and its answer. */
  private levelSeen: string | undefined;
  private infoAtLevelSeen = false;
  /** The last timestamp written and its millisecond: lines of the same millisecond share it. */
  private stampMs = -1;
  private stamp = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    /** The logger's default fields as JSON members (`"service":"switchyard"`), serialised once. */
    readonly meta: string,
    /** How long a line may wait for others (0: to the end of the event-loop turn). */
    private readonly flushMs: number,
  ) {}

  write(line: string): void {
    this.pending += `${line}\n`;
    if (this.pending.length >= MAX_PENDING) {
      this.flush();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    unflushed.add(this);
    if (this.flushMs === 0) setImmediate(this.flush);
    else this.timer = setTimeout(this.flush, this.flushMs).unref();
  }

  /**
   * Whether `logger` writes info lines: winston's `isInfoEnabled()` allocates on every call, so
   * its answer is kept until `logger.level` changes (transports made here have no level of their own).
   */
  infoOn(logger: Logger): boolean {
    if (logger.silent) return false;
    if (this.levelSeen !== logger.level) {
      this.levelSeen = logger.level;
      this.infoAtLevelSeen = logger.isInfoEnabled();
    }
    return this.infoAtLevelSeen;
  }

  /** `new Date().toISOString()`, computed once per millisecond (many lines share one under load). */
  timestamp(): string {
    const now = Date.now();
    if (now !== this.stampMs) {
      this.stampMs = now;
      this.stamp = new Date(now).toISOString();
    }
    return this.stamp;
  }

  readonly flush = (): void => {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.scheduled = false;
    unflushed.delete(this);
    const text = this.pending;
    this.pending = '';
    if (text !== '') this.out.write(text);
  };
}

/** Characters of pending lines (about 200 lines) that are written without waiting further. */
const MAX_PENDING = 64 * 1024;

const unflushed = new Set<LineBuffer>();
process.once('exit', () => {
  for (const buffer of unflushed) buffer.flush();
});

const sinks = new WeakMap<Logger, LineBuffer>();

/** An Error becomes its {@link errorFields}; a plain object one level down has its Errors converted too. */
function convertErrors(value: unknown, depth: number): unknown {
  if (isError(value)) return errorFields(value);
  if (depth > 0 || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const converted = convertErrors(v, depth + 1);
    if (converted !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = converted;
  }
  return out ?? value;
}

/**
 * A winston format that writes every Error found in a line's fields (top level, or inside a plain
 * object there) as `{name, message, stack, code, cause}`: JSON would print `{}`, since an Error's
 * message and stack are not enumerable. Other own properties of the error are left out on purpose
 * (see errorFields).
 */
export const errorsInFields = winston.format((info) => {
  for (const key of Object.keys(info)) {
    const value = info[key];
    const converted = convertErrors(value, 0);
    if (converted !== value) info[key] = converted;
  }
  return info;
});

/**
 * Create a JSON logger at `level` (`silent` mutes everything). `flushMs` is how long access lines
 * ({@link logInfoLine}) may wait to share a write: 0 (the default) to the end of the event-loop
 * turn; the gateway passes `log.flushMs` from its config.
 */
export function createLogger(level: string, stream?: NodeJS.WritableStream, flushMs = 0): Logger {
  const transport = stream
    ? new winston.transports.Stream({ stream })
    : new winston.transports.Console({ stderrLevels: ['error', 'warn'] });
  const logger = winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), errorsInFields(), winston.format.json()),
    defaultMeta: { service: 'switchyard' },
    transports: [transport],
  });
  sinks.set(logger, new LineBuffer(stream ?? process.stdout, JSON.stringify(logger.defaultMeta ?? {}).slice(1, -1), flushMs));
  return logger;
}

/**
 * `logger.info(message, fields)` for the one line every request writes (the access log): the
 * same JSON line (the fields, then `service`, `level`, `message`, `timestamp`, which win over
 * fields of the same name) to the same destination, buffered per event-loop turn, instead of
 * passing winston's format chain and a synchronous write per call (an A/B in bench/README.md
 * keeps this path). The caller's object is serialised as it is and the fixed members are
 * appended as text: merging objects first (`{...meta, ...fields}`) makes V8 build a slow
 * dictionary object that `JSON.stringify` takes far longer over. Fields must be plain
 * JSON values. Loggers not made by {@link createLogger} take the ordinary path.
 */
export function logInfoLine(logger: Logger, message: string, fields: Record<string, unknown>): void {
  const sink = sinks.get(logger);
  if (!sink) {
    logger.info(message, fields);
    return;
  }
  if (!sink.infoOn(logger)) return;
  const own = JSON.stringify(fields);
  const fixed = `${sink.meta === '' ? '' : `${sink.meta},`}"level":"info","message":${JSON.stringify(message)},"timestamp":"${sink.timestamp()}"}`;
  sink.write(own === '{}' ? `{${fixed}` : `${own.slice(0, -1)},${fixed}`);
}
