/** JSON Schema `keys.list.query`: validates the request (src/http/validate.ts) and, through `Wire<'keys.list.query'>`, types it. */

export default {
  $id: 'keys.list.query',
  type: 'object',
  properties: {
    include_disabled: { type: 'boolean', default: false },
    offset: { type: 'integer', minimum: 0, maximum: 1000000, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
    workspace_id: { $ref: 'defs#/$defs/workspaceRef' },
  },
} as const;
