/** JSON Schema `workspaces.delete.query`: validates the request (src/http/validate.ts) and, through `Wire<'workspaces.delete.query'>`, types it. */

export default {
  $id: 'workspaces.delete.query',
  type: 'object',
  properties: { confirm_default_workspace_deletion: { type: 'boolean', default: false } },
} as const;
