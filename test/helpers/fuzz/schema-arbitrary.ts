/**
 * fast-check arbitraries for values described by the request JSON Schemas in `src/wire/`: mostly
 * valid values (so a route's deeper code is reached), bounded in size. Covers the keywords our
 * schemas use: type (one or several), enum, const, properties/required/additionalProperties,
 * items/minItems/maxItems, anyOf/oneOf, $ref (`#/$defs/…` and `defs#/$defs/…`), string
 * minLength/maxLength/pattern/format (uuid, date-time), number minimum/maximum.
 */
import fc from 'fast-check';
import { definitionSchemas, requestSchemas } from '../../../src/wire';

/** A JSON Schema node (the subset used here). */
export interface Schema {
  $id?: string;
  $ref?: string;
  $defs?: Record<string, Schema>;
  type?: string | readonly string[];
  enum?: readonly unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: readonly string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  anyOf?: readonly Schema[];
  oneOf?: readonly Schema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  default?: unknown;
}

/** Every request schema (and the shared definitions) by `$id`. */
export const SCHEMAS: ReadonlyMap<string, Schema> = new Map(
  [...definitionSchemas, ...requestSchemas].map((s): [string, Schema] => [s.$id, s]),
);

/** Largest array a generated (valid) value has; huge arrays come from the mutations. */
const MAX_ITEMS = 8;

function resolveRef(ref: string, root: Schema): { schema: Schema; root: Schema } {
  const [file, pointer = ''] = ref.split('#');
  const base = file ? SCHEMAS.get(file) : root;
  if (!base) throw new Error(`fuzz: unknown schema ${file}`);
  let node: unknown = base;
  for (const part of pointer.split('/').filter(Boolean)) node = (node as Record<string, unknown>)[part];
  if (!node) throw new Error(`fuzz: unresolved $ref ${ref}`);
  return { schema: node, root: base };
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  if (s.format === 'uuid') return fc.uuid();
  if (s.format === 'date-time')
    return fc
      .date({ min: new Date('2020-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString());
  const minLength = s.minLength ?? 0;
  const maxLength = Math.min(s.maxLength ?? 40, Math.max(minLength, 40));
  if (s.pattern) {
    // Anchored patterns generate matching strings; a suffix pattern (`(Z|z)$`) is met by construction above.
    return fc
      .stringMatching(new RegExp(s.pattern))
      .filter((v) => v.length >= minLength && v.length <= (s.maxLength ?? Infinity));
  }
  return fc.string({
    minLength,
    maxLength,
    unit: fc.constantFrom('a', 'b', 'z', '0', '9', '-', '_', ' ', 'é', '文', '😀'),
  });
}

function numberOf(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-9) : (s.minimum ?? -1e6);
  const max = s.maximum ?? 1e6;
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31)) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

function ofType(type: string, s: Schema, root: Schema): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberOf(s, true);
    case 'number':
      return numberOf(s, false);
    case 'string':
      return stringOf(s);
    case 'array': {
      const minLength = s.minItems ?? 0;
      return fc.array(arbitraryFor(s.items ?? {}, root), {
        minLength,
        maxLength: Math.max(minLength, Math.min(s.maxItems ?? MAX_ITEMS, MAX_ITEMS)),
      });
    }
    case 'object': {
      const props = s.properties ?? {};
      const required = new Set(s.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = arbitraryFor(v, root);
      return fc.record(record, { requiredKeys: [...required].filter((k) => k in record) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** An arbitrary of (mostly) valid values of `schema`, resolving refs against `root`. */
export function arbitraryFor(schema: Schema, root: Schema = schema): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const target = resolveRef(schema.$ref, root);
    return arbitraryFor(target.schema, target.root);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices) return fc.oneof(...choices.map((c) => arbitraryFor(c, root)));
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['any'];
  return fc.oneof(...types.map((t) => ofType(t, schema, root)));
}

/** The arbitrary for the schema with `$id` `id`. */
export function arbitraryForId(id: string): fc.Arbitrary<unknown> {
  const schema = SCHEMAS.get(id);
  if (!schema) throw new Error(`fuzz: no schema ${id}`);
  return arbitraryFor(schema);
}
