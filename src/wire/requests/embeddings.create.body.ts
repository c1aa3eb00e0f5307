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
      description: 'false: do not answer from the embeddings cache (the answer may still be stored; Cache-Control: no-store prevents that)',
    },
    provider: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        order: { $ref: '#/$defs/providerList' },
        allow_fallbacks: { type: ['boolean', 'null'] },
        require_parameters: { type: ['boolean', 'null'] },
        data_collection: { enum: ['allow', 'deny', null] },
        zdr: { type: ['boolean', 'null'] },
        enforce_distillable_text: { type: ['boolean', 'null'] },
        only: { $ref: '#/$defs/providerList' },
        ignore: { $ref: '#/$defs/providerList' },
        quantizations: {
          type: ['array', 'null'],
          items: {
            enum: ['int4', 'int8', 'fp4', 'mxfp4', 'nvfp4', 'fp6', 'fp8', 'mxfp8', 'fp16', 'bf16', 'fp32', 'unknown'],
          },
        },
        sort: {
          anyOf: [
            { enum: ['price', 'throughput', 'latency', 'exacto', null] },
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                by: { enum: ['price', 'throughput', 'latency', 'exacto', null] },
                partition: { enum: ['model', 'none', null] },
              },
            },
          ],
        },
        max_price: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            prompt: { $ref: '#/$defs/price' },
            completion: { $ref: '#/$defs/price' },
            image: { $ref: '#/$defs/price' },
            audio: { $ref: '#/$defs/price' },
            request: { $ref: '#/$defs/price' },
          },
        },
        preferred_min_throughput: { $ref: '#/$defs/percentiles' },
        preferred_max_latency: { $ref: '#/$defs/percentiles' },
      },
    },
  },
  $defs: {
    providerList: { type: ['array', 'null'], maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 } },
    price: {
      anyOf: [
        { type: 'number', minimum: 0 },
        { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$' },
        { type: 'null' },
      ],
    },
    percentiles: {
      anyOf: [
        { type: 'number', minimum: 0 },
        {
          type: 'object',
          additionalProperties: false,
          properties: {
            p50: { type: ['number', 'null'], minimum: 0 },
            p75: { type: ['number', 'null'], minimum: 0 },
            p90: { type: ['number', 'null'], minimum: 0 },
            p99: { type: ['number', 'null'], minimum: 0 },
          },
        },
        { type: 'null' },
      ],
    },
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
