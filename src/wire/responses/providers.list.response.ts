/** JSON Schema `providers.list.response`: the answer of `GET /providers`, with circuit states, recent attempts and key pools. */

export default {
  $id: 'providers.list.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'name',
          'slug',
          'privacy_policy_url',
          'terms_of_service_url',
          'status_page_url',
          'configured',
          'recent',
          'endpoints',
          'keys',
        ],
        properties: {
          name: { type: 'string' },
          slug: { type: 'string' },
          privacy_policy_url: { type: 'null' },
          terms_of_service_url: { type: 'null' },
          status_page_url: { type: 'null' },
          configured: { type: 'boolean' },
          recent: { $ref: 'defs.objects#/$defs/recent' },
          endpoints: { type: 'array', items: { $ref: 'defs.objects#/$defs/providerEndpoint' } },
          keys: {
            description: 'The key pool (a provider with two or more keys), each key by label, never by value',
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['label', 'state', 'until', 'status'],
              properties: {
                label: { type: 'string' },
                state: { enum: ['active', 'resting', 'out'] },
                until: { type: ['string', 'null'], format: 'date-time' },
                status: { type: ['integer', 'null'] },
              },
            },
          },
        },
      },
    },
  },
} as const;
