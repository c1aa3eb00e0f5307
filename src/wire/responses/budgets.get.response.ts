/** JSON Schema `budgets.get.response`: the answer of `GET /workspaces/{id}/budgets/{interval}`. */

export default {
  $id: 'budgets.get.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'include_byok_in_budgets'],
  properties: { data: { $ref: 'defs.objects#/$defs/budget' }, include_byok_in_budgets: { type: 'boolean' } },
} as const;
