/** JSON Schema `workspaces.update.body`: validates the request (src/http/validate.ts) and, through `Wire<'workspaces.update.body'>`, types it. */

export default {
  $id: 'workspaces.update.body',
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100 },
    slug: {
      type: 'string',
      minLength: 1,
      maxLength: 50,
      pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
      description:
        'A UUID-shaped slug is refused too (WorkspaceService): UUID-shaped references address workspaces by id.',
    },
    description: { type: ['string', 'null'], maxLength: 500 },
    default_text_model: { type: ['string', 'null'], maxLength: 200 },
    default_image_model: { type: ['string', 'null'], maxLength: 200 },
    default_provider_sort: { type: ['string', 'null'], enum: ['price', 'throughput', 'latency', 'exacto', null] },
    io_logging_api_key_ids: {
      type: ['array', 'null'],
      maxItems: 1000,
      items: {
        type: 'integer',
        minimum: 1,
        maximum: 9007199254740991,
        description:
          'API key ids are positive integers; above 2^53-1 a JSON number cannot hold one exactly, so it would be stored as a different id.',
      },
    },
    io_logging_sampling_rate: { type: 'number', minimum: 0.0001, maximum: 1 },
    is_observability_io_logging_enabled: { type: 'boolean' },
    is_observability_broadcast_enabled: { type: 'boolean' },
    is_data_discount_logging_enabled: { type: 'boolean' },
    disabled_server_tools: {
      type: ['array', 'null'],
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 100 },
    },
    is_embeddings_cache_enabled: {
      type: ['boolean', 'null'],
      description:
        'Embeddings cache for this workspace: true/false, or null to follow the gateway default (embeddingsCache.enabled).',
    },
  },
} as const;
