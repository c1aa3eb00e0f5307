/** JSON Schema `classifiers.update.body`: validates the request (src/http/validate.ts) and, through `Wire<'classifiers.update.body'>`, types it. */

export default {
  $id: 'classifiers.update.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    active: { type: 'boolean' },
    sample_rate: { type: 'number', minimum: 0, maximum: 1 },
    dimensions: { $ref: 'defs.classifiers#/$defs/dimensions' },
  },
} as const;
