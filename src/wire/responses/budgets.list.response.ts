/** JSON Schema `budgets.list.response`: the answer of `GET /workspaces/{id}/budgets`. */

export default {
  $id: 'budgets.list.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'include_byok_in_budgets'],
  properties: {
    data: { type: 'array', items: { $ref: 'defs.objects#/$defs/budget' } },
    include_byok_in_budgets: { type: 'boolean' },
  },
} as const;
