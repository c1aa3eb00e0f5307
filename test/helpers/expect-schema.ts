/**
 * Checks an answer against its response schema (`src/wire/responses/`) with the gateway's own ajv
 * setup, so the schema the types are derived from is also the one the real answers are held to.
 */
import type { ValidateFunction } from 'ajv';
import { createAjv, toIssues } from '../../src/validation/ajv';
import { definitionSchemas, responseSchemas, type ResponseSchemaId } from '../../src/wire';

let compiled: Map<string, ValidateFunction> | undefined;

function validatorFor(id: ResponseSchemaId): ValidateFunction {
  if (!compiled) {
    // No defaults and no coercion: the answer is checked as sent, never changed.
    const ajv = createAjv(false, { useDefaults: false });
    for (const s of [...definitionSchemas, ...responseSchemas]) ajv.addSchema(s);
    compiled = new Map(responseSchemas.map((s) => [s.$id, ajv.getSchema(s.$id) as ValidateFunction]));
  }
  return compiled.get(id) as ValidateFunction;
}

/** Throw, listing every problem, unless `body` matches the response schema `id`. */
export function expectSchema(body: unknown, id: ResponseSchemaId): void {
  const validate = validatorFor(id);
  if (validate(body)) return;
  const problems = toIssues('body', validate.errors).map((i) => `${i.path} ${i.message}`);
  throw new Error(`answer does not match ${id}:\n  ${problems.join('\n  ')}`);
}
