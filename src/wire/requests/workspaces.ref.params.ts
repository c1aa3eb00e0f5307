/** JSON Schema `workspaces.ref.params`: validates the request (src/http/validate.ts) and, through `Wire<'workspaces.ref.params'>`, types it. */

export default {
  $id: 'workspaces.ref.params',
  type: 'object',
  required: ['id'],
  properties: { id: { $ref: 'defs#/$defs/workspaceRef' } },
} as const;
