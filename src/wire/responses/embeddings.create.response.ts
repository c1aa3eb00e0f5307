/** JSON Schema `embeddings.create.response`: the answer of `POST /embeddings` (written as chunks by src/embeddings/response.ts, checked against this in the tests). */

export default {
  $id: 'embeddings.create.response',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'object', 'data', 'model', 'provider', 'usage'],
  properties: {
    id: { type: 'string' },
    object: { const: 'list' },
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['object', 'embedding', 'index'],
        properties: {
          object: { const: 'embedding' },
          embedding: {
            description: 'Numbers, or with encoding_format base64 their little-endian float32 bytes in base64.',
            anyOf: [{ type: 'array', items: { type: 'number' } }, { type: 'string' }],
          },
          index: { type: 'integer', minimum: 0 },
        },
      },
    },
    model: { type: 'string' },
    provider: { type: 'string' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: ['prompt_tokens', 'total_tokens', 'cost', 'is_byok'],
      properties: {
        prompt_tokens: { type: 'integer', minimum: 0 },
        total_tokens: { type: 'integer', minimum: 0 },
        cost: { type: 'number', minimum: 0 },
        is_byok: { type: 'boolean' },
        prompt_tokens_details: {
          type: 'object',
          additionalProperties: false,
          required: ['cached_tokens'],
          properties: { cached_tokens: { type: 'integer', minimum: 0 } },
        },
        cached: { const: true },
      },
    },
  },
} as const;
