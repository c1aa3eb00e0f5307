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

/**
 * Values JSON Schema lets through but the database cannot store: NUL characters in strings
 * (Postgres text rejects them) and non-finite numbers (ajv coerces `1e400` to Infinity).
 */
function findUnstorable(value: unknown, path: string, issues: ValidationIssue[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) issues.push({ path, message: 'must not contain NUL characters' });
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) issues.push({ path, message: 'must be a finite number' });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findUnstorable(value[i], `${path}.${i}`, issues);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) findUnstorable(v, `${path}.${k}`, issues);
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
