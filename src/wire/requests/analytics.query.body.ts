/** JSON Schema `analytics.query.body`: validates the request (src/http/validate.ts) and, through `Wire<'analytics.query.body'>`, types it. */

export default {
  $id: 'analytics.query.body',
  type: 'object',
  additionalProperties: false,
  required: ['metrics'],
  properties: {
    metrics: { type: 'array', minItems: 1, maxItems: 40, items: { type: 'string', minLength: 1, maxLength: 64 } },
    dimensions: { type: 'array', maxItems: 2, items: { type: 'string', minLength: 1, maxLength: 64 } },
    filters: {
      type: 'array',
      maxItems: 20,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['field', 'operator', 'value'],
        properties: {
          field: { type: 'string', minLength: 1, maxLength: 64 },
          operator: { type: 'string', enum: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in'] },
          value: {
            anyOf: [
              { $ref: '#/$defs/scalar' },
              { type: 'array', minItems: 1, maxItems: 1000, items: { $ref: '#/$defs/scalar' } },
            ],
          },
          include_unset: { type: 'boolean' },
        },
      },
    },
    granularity: { type: 'string', enum: ['minute', 'hour', 'day', 'week', 'month'] },
    time_range: {
      type: 'object',
      additionalProperties: false,
      required: ['start', 'end'],
      properties: { start: { $ref: '#/$defs/instant' }, end: { $ref: '#/$defs/instant' } },
    },
    limit: { type: 'integer', minimum: 1, maximum: 10000 },
    group_limit: { type: 'integer', minimum: 1, maximum: 10000 },
    order_by: {
      type: 'object',
      additionalProperties: false,
      required: ['field', 'direction'],
      properties: {
        field: { type: 'string', minLength: 1, maxLength: 64 },
        direction: { type: 'string', enum: ['asc', 'desc'] },
      },
    },
    classifier_dimensions: {
      type: 'object',
      additionalProperties: false,
      required: ['classifier_id'],
      properties: {
        classifier_id: { $ref: 'defs#/$defs/uuid' },
        dimension_names: { type: 'array', maxItems: 2, uniqueItems: true, items: { $ref: '#/$defs/tagName' } },
        include_nulls: { type: 'boolean' },
      },
    },
    classifier_filters: {
      type: 'object',
      additionalProperties: false,
      required: ['classifier_id', 'filters'],
      properties: {
        classifier_id: { $ref: 'defs#/$defs/uuid' },
        filters: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['field', 'operator', 'value'],
            properties: {
              field: { $ref: '#/$defs/tagName' },
              operator: { type: 'string', enum: ['eq', 'neq', 'in', 'not_in'] },
              value: {
                anyOf: [
                  { type: 'string', maxLength: 200 },
                  { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', maxLength: 200 } },
                ],
              },
            },
          },
        },
      },
    },
  },
  $defs: {
    scalar: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }] },
    instant: {
      type: 'string',
      format: 'date-time',
      maxLength: 40,
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|z|[+-]00:?00)$',
    },
    tagName: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
  },
} as const;
