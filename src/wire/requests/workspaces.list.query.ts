/** JSON Schema `workspaces.list.query`: validates the request (src/http/validate.ts) and, through `Wire<'workspaces.list.query'>`, types it. */

export default {
  $id: 'workspaces.list.query',
  type: 'object',
  properties: {
    offset: { type: 'integer', minimum: 0, maximum: 1000000, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    include: { type: 'string', pattern: '^(budgets|members)(,(budgets|members))?$' },
  },
} as const;
