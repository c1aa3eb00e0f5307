/**
 * Structured JSON logging (winston). A `silent` level exists so tests and the CLI can mute it.
 * Callers pass fields, never raw headers: the access log builds its own allow-listed record, so
 * the Authorization header and request bodies cannot reach a log line. An Error among the fields
 * (`logger.warn('...', { err })`) is written as its name, message, stack and code
 * ({@link errorsInFields}), so no call site can log an error as `{}`.
 * @module
 */
import winston from 'winston';
import TransportStream from 'winston-transport';
import { errorFields, isError } from './error-fields';

/** The logger type used across the gateway. */
export type Logger = winston.Logger;

/** Where winston's formats leave the finished line (triple-beam's MESSAGE, winston's documented key for transports). */
const MESSAGE = Symbol.for('message');

/** Characters of pending lines (about 200 access lines) that are written without waiting further. */
const MAX_PENDING = 64 * 1024;

/** Transports with lines waiting, written at process exit. */
const unflushed = new Set<LineTransport>();
process.once('exit', () => {
  for (const transport of unflushed) transport.flush();
});

/**
 * The one destination of every line, a winston transport: the lines of one event-loop turn (or of
 * `flushMs`, when it is over 0) leave in one write, so under load one syscall carries many requests'
 * access lines instead of one each (stdout is a pipe, written synchronously, and each write wakes its
 * reader). Lines keep their order, whatever their level; with `errorsTo`, warnings and errors go
 * there at once, after the lines already waiting. Pending lines are also written once
 * {@link MAX_PENDING} characters wait, and at process exit.
 */
class LineTransport extends TransportStream {
  private pending = '';
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly errorsTo: NodeJS.WritableStream | null,
    /** How long a line may wait for others (0: to the end of the event-loop turn). */
    private readonly flushMs: number,
  ) {
    super();
  }

  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    const line = `${String(info[MESSAGE])}\n`;
    if (this.errorsTo && (info.level === 'error' || info.level === 'warn')) {
      this.flush();
      this.errorsTo.write(line);
    } else {
      this.pending += line;
      if (this.pending.length >= MAX_PENDING) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        unflushed.add(this);
        if (this.flushMs === 0) setImmediate(this.flush);
        else this.timer = setTimeout(this.flush, this.flushMs).unref();
      }
    }
    next();
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
 * Create a JSON logger at `level` (`silent` mutes everything), writing to `stream` (every level),
 * else to stdout (warnings and errors to stderr). `flushMs` is how long lines may wait to share a
 * write: 0 (the default) to the end of the event-loop turn; the gateway passes `log.flushMs`.
 */
export function createLogger(level: string, stream?: NodeJS.WritableStream, flushMs = 0): Logger {
  return winston.createLogger({
    level: level === 'silent' ? 'error' : level,
    silent: level === 'silent',
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      errorsInFields(),
      winston.format.json(),
    ),
    defaultMeta: { service: 'switchyard' },
    transports: [new LineTransport(stream ?? process.stdout, stream ? null : process.stderr, flushMs)],
  });
}
