/** JSON Schema `keys.hash.params`: validates the request (src/http/validate.ts) and, through `Wire<'keys.hash.params'>`, types it. */

export default {
  $id: 'keys.hash.params',
  type: 'object',
  required: ['hash'],
  properties: { hash: { $ref: 'defs#/$defs/keyHash' } },
} as const;
