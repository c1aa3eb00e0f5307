/** JSON Schema `workspaces.get.response`: the answer of `POST`, `GET` and `PATCH /workspaces[/{id}]`. */

export default {
  $id: 'workspaces.get.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: { data: { $ref: 'defs.objects#/$defs/workspace' } },
} as const;
