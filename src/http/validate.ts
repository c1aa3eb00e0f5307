/**
 * Request validation against the JSON Schemas in `schemas/`. All parts are checked and every
 * problem is reported together in one 400; a failed alternative (anyOf/oneOf) reports the problems
 * of the branch the value matched best only (src/validation/explain.ts). Validated values (with defaults applied and query
 * strings coerced) land in `req.valid`, which handlers read instead of `req.body`/`req.query`.
 * @module
 */
import type { NextFunction, Request, Response } from 'express';
import { MAX_LISTED_ISSUES, NotFoundError, ValidationError, type ValidationIssue } from '../errors';
import { toIssues } from '../validation/ajv';
import { getValidator, schemaGraph, type InputPart } from '../validation/schemas';
import type { RequestSchemaId, Wire } from '../wire';

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
  const start = issues.length;
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
    // Enough to report: the walk stops (a body of 100,000 NULs is one 400, not 100,000 issues).
    if (issues.length - start > MAX_LISTED_ISSUES) return;
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

/** The request part a schema id applies to: its last segment (`keys.create.body` → `body`). */
type PartOf<Id extends RequestSchemaId> = Id extends `${string}.body`
  ? 'body'
  : Id extends `${string}.query`
    ? 'query'
    : 'params';
/** Ids of the request schemas for one part. */
type IdsOf<P extends InputPart> = { [Id in RequestSchemaId]: PartOf<Id> extends P ? Id : never }[RequestSchemaId];

/** Schema ids per request part; each id names its part, so a body schema cannot validate a query. */
export type ValidateSpec = { [P in InputPart]?: IdsOf<P> };

/**
 * Bodies up to this size that fail validation are validated again listing every problem;
 * larger ones report the first problem only (`metadata.stopped_early`), so a huge invalid body
 * costs one early-stopping pass, not an error object per item.
 */
export const FULL_REPORT_MAX_BYTES = 16 * 1024;

/** Can `req`'s body be re-validated for the full list of problems (a small, declared length)? */
function smallBody(req: Request): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared <= FULL_REPORT_MAX_BYTES;
}

/** Build a validator; unknown schema ids fail here, at boot. */
export function validate(spec: ValidateSpec) {
  const parts = (Object.entries(spec) as Array<[InputPart, RequestSchemaId]>).map(([part, id]) => ({
    part,
    schema: getValidator(id),
  }));
  return function validateMiddleware(req: Request, _res: Response, next: NextFunction): void {
    const issues: ValidationIssue[] = [];
    let stoppedEarly = false;
    let unlisted = 0;
    for (const { part, schema } of parts) {
      // Copies: express 5 recomputes req.query, and coercion must not touch the raw input.
      const source: unknown = part === 'body' ? req.body : part === 'query' ? req.query : req.params;
      const data = part === 'body' ? source : { ...(source as object) };
      if (!schema.firstError(data)) {
        // Query strings and path parameters are small (the header limit bounds them); a body only when declared so.
        const all = part !== 'body' || smallBody(req);
        // Validated again from the raw input: a failed pass may have applied defaults or coercions.
        const again = part === 'body' ? source : { ...(source as object) };
        const fn = all ? schema.all : schema.firstError;
        if (all) fn(again);
        else stoppedEarly = true;
        // A failed anyOf/oneOf lists every branch's problems: keep those of the branch meant.
        const explained = schemaGraph().explain(fn.errors ?? []);
        const room = Math.max(0, MAX_LISTED_ISSUES - issues.length);
        unlisted += Math.max(0, explained.length - room);
        // A loop, never push(...spread): a spread of a long list overflows the call stack.
        for (const issue of toIssues(part, explained, room)) issues.push(issue);
        continue;
      }
      findUnstorable(data, part, issues);
      req.valid[part] = data;
    }
    if (issues.length > 0) {
      const more = Math.max(0, issues.length - MAX_LISTED_ISSUES) + unlisted;
      throw new ValidationError(issues, undefined, {
        ...(more > 0 ? { more_errors: more } : {}),
        ...(stoppedEarly ? { stopped_early: true } : {}),
      });
    }
    next();
  };
}

/**
 * Path parameters that name a resource: a value that cannot name one (a malformed key hash)
 * is answered 404 exactly like an unknown one, as the spec lists 404 and no 400 for them.
 * Valid values land in `req.valid.params`.
 */
export function pathNamesResource(
  schemaId: IdsOf<'params'>,
  notFound: (req: Request) => NotFoundError = () => new NotFoundError(),
) {
  const { firstError } = getValidator(schemaId);
  return function pathNamesResourceMiddleware(req: Request, _res: Response, next: NextFunction): void {
    const params = { ...req.params };
    if (!firstError(params)) throw notFound(req);
    req.valid.params = params;
    next();
  };
}

/**
 * The validated value of the request part `id` applies to, typed by its schema: what handlers read
 * instead of casting `req.valid.*`. The route must have run `validate()` (or `pathNamesResource`)
 * with this schema; reading a part no schema validated is a wiring bug, so it throws.
 * @example const { name } = validated(req, 'keys.create.body');
 */
export function validated<Id extends RequestSchemaId>(req: Request, id: Id): Wire<Id>;
export function validated(req: Request, id: RequestSchemaId): unknown {
  const value = req.valid[id.slice(id.lastIndexOf('.') + 1) as InputPart];
  if (value === undefined) throw new Error(`switchyard: the route reads ${id} but did not validate it`);
  return value;
}
