/** JSON Schema `embeddings.create.body`: validates the request (src/http/validate.ts) and, through `Wire<'embeddings.create.body'>`, types it. */

export default {
  $id: 'embeddings.create.body',
  type: 'object',
  required: ['input', 'model'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    input: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', minItems: 1, maxItems: 2048, items: { type: 'string', minLength: 1 } },
        { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } },
        {
          type: 'array',
          minItems: 1,
          maxItems: 2048,
          items: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } },
        },
        {
          type: 'array',
          minItems: 1,
          maxItems: 2048,
          items: {
            type: 'object',
            required: ['content'],
            additionalProperties: false,
            properties: {
              content: { type: 'array', minItems: 1, maxItems: 64, items: { $ref: '#/$defs/contentPart' } },
            },
          },
        },
      ],
    },
    dimensions: { type: 'integer', minimum: 1, maximum: 65536 },
    encoding_format: { enum: ['float', 'base64'] },
    input_type: { type: 'string', minLength: 1, maxLength: 100 },
    user: { type: 'string', maxLength: 512 },
    session_id: { type: 'string', maxLength: 256 },
    trace: { type: 'object' },
    cache: {
      type: 'boolean',
      description:
        'false: do not answer from the embeddings cache (the answer may still be stored; Cache-Control: no-store prevents that)',
    },
    provider: { $ref: 'defs#/$defs/providerPreferences' },
  },
  $defs: {
    contentPart: {
      anyOf: [
        {
          type: 'object',
          required: ['type', 'text'],
          additionalProperties: false,
          properties: { type: { const: 'text' }, text: { type: 'string', minLength: 1 } },
        },
        {
          type: 'object',
          required: ['type', 'image_url'],
          additionalProperties: false,
          properties: {
            type: { const: 'image_url' },
            image_url: {
              type: 'object',
              required: ['url'],
              properties: { url: { type: 'string', pattern: '^(https?://|data:)' }, detail: { type: 'string' } },
            },
          },
        },
        {
          type: 'object',
          required: ['type', 'input_audio'],
          additionalProperties: false,
          properties: { type: { const: 'input_audio' }, input_audio: { $ref: '#/$defs/media' } },
        },
        {
          type: 'object',
          required: ['type', 'input_video'],
          additionalProperties: false,
          properties: { type: { const: 'input_video' }, input_video: { $ref: '#/$defs/media' } },
        },
        {
          type: 'object',
          required: ['type', 'input_file'],
          additionalProperties: false,
          properties: { type: { const: 'input_file' }, input_file: { $ref: '#/$defs/media' } },
        },
      ],
    },
    media: {
      type: 'object',
      required: ['data'],
      properties: { data: { type: 'string', minLength: 1 }, format: { type: 'string' } },
    },
  },
} as const;
