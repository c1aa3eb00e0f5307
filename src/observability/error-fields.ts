/**
 * Turns a thrown value into plain log fields. winston's `format.errors` only unpacks an Error
 * passed as the log message itself; one nested in the metadata (`{err}`) would serialise as `{}`
 * because `message` and `stack` are not enumerable. The gateway's logger applies this to every
 * Error among a line's fields (logger.ts, `errorsInFields`); call it directly for a value that
 * may not be an Error, or to log outside that logger.
 * @module
 */
import { types } from 'node:util';

/** What a log line says about an error. */
export interface ErrorFields {
  name: string;
  message: string;
  stack?: string;
  /** Node / driver error code (`ECONNREFUSED`, Postgres SQLSTATE, `ERR_ERL_…`). */
  code?: string;
  /** The `cause` chain, one level per entry, so wrapped driver errors stay visible. */
  cause?: ErrorFields;
}

const MAX_CAUSE_DEPTH = 3;

/**
 * Whether `value` is an Error, including one made in another realm (a VM context, as under a
 * test runner, where Node's own errors fail `instanceof Error`).
 */
export function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

/**
 * Name, message, stack, code and cause of `err`; never other own properties, which for driver
 * errors can hold query parameters (request data) or connection strings.
 */
export function errorFields(err: unknown, depth = 0): ErrorFields {
  if (!isError(err)) return { name: typeof err, message: String(err) };
  const fields: ErrorFields = { name: err.name, message: err.message };
  if (err.stack) fields.stack = err.stack;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') fields.code = String(code);
  if (err.cause !== undefined && depth < MAX_CAUSE_DEPTH) fields.cause = errorFields(err.cause, depth + 1);
  return fields;
}
