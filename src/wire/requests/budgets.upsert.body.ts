/** JSON Schema `budgets.upsert.body`: validates the request (src/http/validate.ts) and, through `Wire<'budgets.upsert.body'>`, types it. */

export default {
  $id: 'budgets.upsert.body',
  type: 'object',
  additionalProperties: false,
  required: ['limit_usd'],
  properties: {
    limit_usd: {
      type: 'number',
      minimum: 1e-9,
      maximum: 1000000000,
      description:
        'Greater than 0 (spec), and at least 1 nano-USD: spend is counted in integer nano-USD, so a smaller limit would round to 0 and refuse every request.',
    },
    include_byok_in_budgets: { type: 'boolean' },
  },
} as const;
