/** JSON Schema `analytics.meta.response`: the answer of `GET /analytics/meta`. */

const named = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'display_label'],
  properties: { name: { type: 'string' }, display_label: { type: 'string' } },
} as const;

export default {
  $id: 'analytics.meta.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['metrics', 'dimensions', 'operators', 'granularities'],
      properties: {
        metrics: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'display_label', 'is_rate', 'display_format'],
            properties: {
              name: { type: 'string' },
              display_label: { type: 'string' },
              is_rate: { type: 'boolean' },
              display_format: { enum: ['number', 'currency', 'percent', 'latency', 'throughput'] },
            },
          },
        },
        dimensions: { type: 'array', items: named },
        operators: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'value_type'],
            properties: { name: { type: 'string' }, value_type: { enum: ['scalar', 'array'] } },
          },
        },
        granularities: { type: 'array', items: named },
      },
    },
  },
} as const;
