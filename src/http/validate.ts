/**
 * Request validation against the JSON Schemas in `schemas/`. All parts are checked and every
 * problem is reported together in one 400. Validated values (with defaults applied and query
 * strings coerced) land in `req.valid`, which handlers read instead of `req.body`/`req.query`.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { ValidationError, type ValidationIssue } from '../errors';
import { toIssues } from '../validation/ajv';
import { getValidator, type InputPart } from '../validation/schemas';

/** Any UTF-16 surrogate: the fast pre-check, since most strings contain none. */
const SURROGATE = /[\uD800-\uDFFF]/;
/** A surrogate that is not half of a valid pair (JSON's `"\ud800"` escapes can produce one). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored as Postgres text/jsonb, or null when it can. */
function unstorableText(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain NUL characters';
  if (SURROGATE.test(text) && LONE_SURROGATE.test(text)) return 'must not contain unpaired UTF-16 surrogates';
  return null;
}

/** Deepest nesting of objects and arrays a request may have; no schema needs more than a few levels. */
export const MAX_DEPTH = 64;

/** A container being walked: its value and where it sits (the path is only built for an issue). */
interface Frame {
  value: object;
  parent: Frame | null;
  key: string;
  depth: number;
}

function pathOf(frame: Frame, key?: string): string {
  const keys: string[] = key === undefined ? [] : [key];
  for (let f: Frame | null = frame; f; f = f.parent) keys.push(f.key);
  return keys.reverse().join('.');
}

/**
 * Values JSON Schema lets through but the database cannot store: NUL characters in strings
 * (Postgres text rejects them), unpaired surrogates (not UTF-8 encodable: Postgres rejects
 * them in jsonb parameters, 22P02), and non-finite numbers (ajv coerces `1e400` to Infinity);
 * and nesting deeper than {@link MAX_DEPTH} (free-form members such as `trace` would otherwise
 * carry thousands of levels into code that walks them). Object keys are checked as well as
 * values. Run on every validated part of every route, so no route can pass such a value on to a
 * query and answer 500. Iterative, and paths are built only for problems found: a 2,048-item
 * token array costs a loop, not 2,048 strings.
 */
function findUnstorable(value: unknown, part: string, issues: ValidationIssue[]): void {
  const check = (v: unknown, frame: Frame | null, key: string | undefined, depth: number): void => {
    let problem: string | null = null;
    if (typeof v === 'string') problem = unstorableText(v);
    else if (typeof v === 'number') problem = Number.isFinite(v) ? null : 'must be a finite number';
    else if (v !== null && typeof v === 'object') {
      if (depth > MAX_DEPTH) problem = `must not be nested more than ${MAX_DEPTH} levels deep`;
      else stack.push({ value: v, parent: frame, key: key ?? part, depth });
    }
    if (problem) issues.push({ path: frame ? pathOf(frame, key) : part, message: problem });
  };
  const stack: Frame[] = [];
  check(value, null, undefined, 1);
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value: container, depth } = frame;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) check(container[i], frame, String(i), depth + 1);
      continue;
    }
    for (const k of Object.keys(container)) {
      const keyProblem = unstorableText(k);
      // The key itself is not echoed: it is the unstorable part.
      if (keyProblem) issues.push({ path: pathOf(frame), message: `has a property name that ${keyProblem}` });
      else check((container as Record<string, unknown>)[k], frame, k, depth + 1);
    }
  }
}

/** Schema ids per request part. */
export type ValidateSpec = Partial<Record<InputPart, string>>;

/** Build a validator; unknown schema ids fail here, at boot. */
export function validate(spec: ValidateSpec) {
  const parts = (Object.entries(spec) as Array<[InputPart, string]>).map(([part, id]) => ({ part, fn: getValidator(id) }));
  return function validateMiddleware(req: Request, _res: Response, next: NextFunction): void {
    const issues: ValidationIssue[] = [];
    for (const { part, fn } of parts) {
      // Copies: express 5 recomputes req.query, and coercion must not touch the raw input.
      const source: unknown = part === 'body' ? req.body : part === 'query' ? req.query : req.params;
      const data = part === 'body' ? source : { ...(source as object) };
      if (!fn(data)) {
        issues.push(...toIssues(part, fn.errors));
        continue;
      }
      findUnstorable(data, part, issues);
      req.valid[part] = data;
    }
    if (issues.length > 0) throw new ValidationError(issues);
    next();
  };
}
