/** JSON Schema `datasets.rankings.response`: the answer of `GET /datasets/rankings-daily`. */

export default {
  $id: 'datasets.rankings.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'meta'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['date', 'model_permaslug', 'total_tokens'],
        properties: {
          date: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
          model_permaslug: { type: 'string' },
          total_tokens: {
            type: 'string',
            pattern: '^[0-9]+$',
            description: 'a decimal string: token sums outgrow JSON numbers',
          },
        },
      },
    },
    meta: {
      type: 'object',
      additionalProperties: false,
      required: ['as_of', 'start_date', 'end_date', 'version'],
      properties: {
        as_of: { type: 'string', description: "the last rollup's start; the epoch before the first run" },
        start_date: { type: 'string' },
        end_date: { type: 'string' },
        version: { const: 'v1' },
      },
    },
  },
} as const;
