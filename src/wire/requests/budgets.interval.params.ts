/** JSON Schema `budgets.interval.params`: validates the request (src/http/validate.ts) and, through `Wire<'budgets.interval.params'>`, types it. */

export default {
  $id: 'budgets.interval.params',
  type: 'object',
  required: ['id', 'interval'],
  properties: {
    id: { $ref: 'defs#/$defs/workspaceRef' },
    interval: { enum: ['daily', 'weekly', 'monthly', 'lifetime'] },
  },
} as const;
