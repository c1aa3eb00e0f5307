/** JSON Schema `keys.list.response`: the answer of `GET /keys`. */

export default {
  $id: 'keys.list.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { type: 'array', items: { $ref: 'defs.objects#/$defs/key' } } },
} as const;
