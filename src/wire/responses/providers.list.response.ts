/** JSON Schema `providers.list.response`: the answer of `GET /providers`, with circuit states and recent attempts. */

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
        },
      },
    },
  },
} as const;
