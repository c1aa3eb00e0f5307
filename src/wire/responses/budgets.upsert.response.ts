/** JSON Schema `budgets.upsert.response`: the answer of `PUT /workspaces/{id}/budgets/{interval}`. */

export default {
  $id: 'budgets.upsert.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'include_byok_in_budgets'],
  properties: { data: { $ref: 'defs.objects#/$defs/budgetSettings' }, include_byok_in_budgets: { type: 'boolean' } },
} as const;
