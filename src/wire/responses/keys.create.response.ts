/** JSON Schema `keys.create.response`: the answer of `POST /keys` (the secret, shown once) and of `POST /keys/{hash}/rotate` (which adds the revoked hash). */

export default {
  $id: 'keys.create.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'key'],
  properties: { data: { $ref: 'defs.objects#/$defs/key' }, key: { type: 'string' }, revoked: { type: 'string' } },
} as const;
