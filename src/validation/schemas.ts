/**
 * Request schemas: every wire schema of `src/wire/` compiled once per process. Bodies are
 * validated without type coercion (JSON has types); query strings and path parameters with
 * coercion (everything arrives as text). A schema's `$id` names it, e.g. `keys.create.body`.
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from './ajv';
import { SchemaGraph } from './explain';
import { definitionSchemas, requestSchemas, type RequestSchemaId } from '../wire';

/** Where a schema applies; decides whether values are coerced from strings. */
export type InputPart = 'body' | 'query' | 'params';

/**
 * A schema compiled twice: `firstError` stops at the first problem (ajv's `allErrors: false`:
 * `maxItems` fails before any item is looked at), so it is cheap whatever the input, and `all`
 * lists every problem, for inputs small enough that the list stays small. `all` runs only on
 * input already refused, so it is compiled `verbose`: its errors carry the schema they come from,
 * which {@link SchemaGraph.explain} needs to tell an alternative's branches apart.
 */
export interface CompiledSchema {
  firstError: ValidateFunction;
  all: ValidateFunction;
}

let compiled: Map<string, CompiledSchema> | undefined;

function compileAll(): Map<string, CompiledSchema> {
  const full = compileEach(true);
  const fast = compileEach(false);
  return new Map([...full].map(([id, all]) => [id, { all, firstError: fast.get(id) as ValidateFunction }]));
}

function compileEach(allErrors: boolean): Map<string, ValidateFunction> {
  const strict = createAjv(false, { allErrors, verbose: allErrors });
  const coercing = createAjv(true, { allErrors, verbose: allErrors });
  const out = new Map<string, ValidateFunction>();
  // Every schema added before any is compiled, so `$ref`s between them resolve in both instances.
  for (const s of [...definitionSchemas, ...requestSchemas]) {
    strict.addSchema(s);
    coercing.addSchema(s);
  }
  for (const { $id: id } of requestSchemas) {
    const ajv = id.endsWith('.body') ? strict : coercing;
    out.set(id, ajv.getSchema(id) as ValidateFunction);
  }
  return out;
}

/**
 * The compiled validator for `id`; throws at boot (not per request) if it does not exist.
 */
export function getValidator(id: RequestSchemaId): CompiledSchema {
  compiled ??= compileAll();
  const fn = compiled.get(id);
  if (!fn) throw new Error(`switchyard: no request schema with $id "${id}" in src/wire/`);
  return fn;
}

let graph: SchemaGraph | undefined;

/** The request schemas as a {@link SchemaGraph}, to reduce a refusal's problems to those that explain it. */
export function schemaGraph(): SchemaGraph {
  graph ??= new SchemaGraph([...definitionSchemas, ...requestSchemas]);
  return graph;
}
