/** Shared definitions that request and response schemas `$ref` as `defs.classifiers#/$defs/<name>`. */

export default {
  $id: 'defs.classifiers',
  $defs: {
    dimensions: {
      type: 'array',
      minItems: 1,
      maxItems: 10,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'rules'],
        properties: {
          name: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
          rules: {
            type: 'array',
            minItems: 1,
            maxItems: 50,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['value'],
              properties: {
                value: { type: 'string', minLength: 1, maxLength: 200 },
                keywords: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 200 } },
                patterns: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 1000 } },
              },
            },
          },
        },
      },
    },
  },
} as const;
