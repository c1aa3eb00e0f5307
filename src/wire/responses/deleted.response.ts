/** JSON Schema `deleted.response`: the answer of every management `DELETE`. */

export default {
  $id: 'deleted.response',
  type: 'object',
  additionalProperties: false,
  required: ['deleted'],
  properties: { deleted: { const: true } },
} as const;
