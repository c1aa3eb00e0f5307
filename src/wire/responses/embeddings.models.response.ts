/**
 * JSON Schema `embeddings.models.response`: the answer of `GET /embeddings/models`, one page of the
 * catalog's embeddings models (src/catalog builds each model's wire form).
 */

const nullableText = { type: ['string', 'null'] } as const;
const decimal = { type: 'string', pattern: '^\\d+(\\.\\d+)?$' } as const;

export default {
  $id: 'embeddings.models.response',
  type: 'object',
  additionalProperties: false,
  required: ['data', 'total_count', 'links'],
  properties: {
    data: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'canonical_slug',
          'hugging_face_id',
          'name',
          'created',
          'description',
          'context_length',
          'architecture',
          'pricing',
          'top_provider',
          'per_request_limits',
          'supported_parameters',
          'default_parameters',
          'supported_voices',
          'knowledge_cutoff',
          'expiration_date',
          'links',
        ],
        properties: {
          id: { type: 'string' },
          canonical_slug: { type: 'string' },
          hugging_face_id: nullableText,
          name: { type: 'string' },
          created: { type: 'integer' },
          description: { type: 'string' },
          context_length: { type: 'integer' },
          architecture: {
            type: 'object',
            required: ['input_modalities', 'output_modalities', 'modality', 'tokenizer', 'instruct_type'],
            properties: {
              input_modalities: { type: 'array', items: { type: 'string' } },
              output_modalities: { type: 'array', items: { type: 'string' } },
              modality: { type: 'string' },
              tokenizer: { type: 'string' },
              instruct_type: nullableText,
            },
          },
          pricing: {
            description: 'USD per token (or per request, per image) as decimal text.',
            type: 'object',
            required: ['prompt'],
            properties: { prompt: decimal },
            additionalProperties: decimal,
          },
          top_provider: {
            type: 'object',
            required: ['context_length'],
            properties: { context_length: { type: ['integer', 'null'] } },
          },
          per_request_limits: { type: ['object', 'null'] },
          supported_parameters: { type: 'array', items: { type: 'string' } },
          default_parameters: { type: ['object', 'null'] },
          supported_voices: { type: ['array', 'null'] },
          knowledge_cutoff: nullableText,
          expiration_date: nullableText,
          links: { type: 'object', required: ['details'], properties: { details: { type: 'string' } } },
        },
      },
    },
    total_count: { type: 'integer' },
    links: { type: 'object', additionalProperties: false, required: ['next'], properties: { next: nullableText } },
  },
} as const;
