/** JSON Schema `members.list.response`: the answer of `GET /workspaces/{id}/members`. */

export default {
  $id: 'members.list.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'total_count'],
  properties: {
    data: { type: 'array', items: { $ref: 'defs.objects#/$defs/member' } },
    total_count: { type: 'integer' },
  },
} as const;
