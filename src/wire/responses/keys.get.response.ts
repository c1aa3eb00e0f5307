/** JSON Schema `keys.get.response`: the answer of `GET` and `PATCH /keys/{hash}`. */

export default {
  $id: 'keys.get.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { $ref: 'defs.objects#/$defs/key' } },
} as const;
