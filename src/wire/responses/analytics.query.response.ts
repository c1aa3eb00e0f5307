/** JSON Schema `analytics.query.response`: the answer of `POST /analytics/query`: rows of dimension values, `date__<granularity>` and metric numbers. */

export default {
  $id: 'analytics.query.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['data', 'metadata'],
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'null' }] },
          },
        },
        metadata: {
          type: 'object',
          additionalProperties: false,
          required: ['row_count', 'truncated'],
          properties: {
            row_count: { type: 'integer' },
            truncated: { type: 'boolean' },
            query_time_ms: { type: 'number' },
          },
        },
        warnings: { type: 'array', items: { type: 'string' } },
      },
    },
  },
} as const;
