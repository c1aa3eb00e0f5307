/** JSON Schema `classifiers.create.body`: validates the request (src/http/validate.ts) and, through `Wire<'classifiers.create.body'>`, types it. */

export default {
  $id: 'classifiers.create.body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'dimensions'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    active: { type: 'boolean' },
    sample_rate: { type: 'number', minimum: 0, maximum: 1 },
    dimensions: { $ref: 'defs.classifiers#/$defs/dimensions' },
  },
} as const;
