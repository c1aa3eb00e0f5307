/** JSON Schema `embeddings.models.query`: validates the request (src/http/validate.ts) and, through `Wire<'embeddings.models.query'>`, types it. */

export default {
  $id: 'embeddings.models.query',
  type: 'object',
  properties: {
    offset: { type: 'integer', minimum: 0, maximum: 1000000 },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
  },
} as const;
