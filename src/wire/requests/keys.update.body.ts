/** JSON Schema `keys.update.body`: validates the request (src/http/validate.ts) and, through `Wire<'keys.update.body'>`, types it. */

export default {
  $id: 'keys.update.body',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    disabled: { type: 'boolean' },
    limit: { type: ['number', 'null'], minimum: 0, maximum: 1000000000 },
    limit_reset: { $ref: 'defs#/$defs/limitReset' },
    include_byok_in_limit: { type: 'boolean' },
  },
} as const;
