/**
 * The single ajv setup shared by config validation and request validation, so that both speak
 * the same JSON Schema dialect and formats and produce the same issue shape.
 * @module
 */
import Ajv, { type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { ValidationIssue } from '../errors';
import { addStrictFormats } from './formats';

/** Build an ajv instance with formats (date-times must be real Dates); `coerce` turns query/env strings into numbers/booleans. */
export function createAjv(coerce: boolean, extra: Options = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    ...extra,
  });
  addFormats(ajv);
  addStrictFormats(ajv);
  return ajv;
}

/**
 * What a schema `pattern` means, for the patterns whose source says nothing to a client (`\S` would
 * read `must match pattern "\S"`).
 */
const PATTERN_MEANINGS: Readonly<Record<string, string>> = { '\\S': 'must contain a character other than whitespace' };

/**
 * Turn ajv's errors into `{path, message}` issues rooted at `where` (body, query, params, config).
 * @param max - convert at most this many (the rest are only counted by the caller)
 */
export function toIssues(where: string, errors: ErrorObject[] | null | undefined, max = Infinity): ValidationIssue[] {
  const list = errors ?? [];
  return (list.length > max ? list.slice(0, max) : list).map((e) => {
    const segments = e.instancePath.split('/').filter(Boolean);
    if (e.keyword === 'required') segments.push(String(e.params.missingProperty));
    if (e.keyword === 'additionalProperties') segments.push(String(e.params.additionalProperty));
    const field = [where, ...segments].join('.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') message = 'is not allowed';
    if (e.keyword === 'enum') message = `must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    if (e.keyword === 'pattern') message = PATTERN_MEANINGS[String(e.params.pattern)] ?? message;
    return { path: field, message };
  });
}
