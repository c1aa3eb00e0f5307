/** JSON Schema `workspaces.list.response`: the answer of `GET /workspaces` (without `include`, which adds fields to each workspace). */

export default {
  $id: 'workspaces.list.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'total_count'],
  properties: {
    data: { type: 'array', items: { $ref: 'defs.objects#/$defs/workspace' } },
    total_count: { type: 'integer' },
  },
} as const;
