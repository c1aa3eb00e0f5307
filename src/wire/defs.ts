/** Shared definitions that request and response schemas `$ref` as `defs#/$defs/<name>`. */

export default {
  $id: 'defs',
  $defs: {
    uuid: { type: 'string', format: 'uuid' },
    workspaceRef: { type: 'string', minLength: 1, maxLength: 100 },
    keyHash: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    utcDateTime: { type: 'string', format: 'date-time', pattern: '(Z|z|[+-]00:?00)$', maxLength: 64 },
    limitReset: { type: ['string', 'null'], enum: ['daily', 'weekly', 'monthly', null] },
    /** The `provider` object of the inference routes (embeddings and chat): routing preferences. */
    providerPreferences: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        order: { $ref: 'defs#/$defs/providerList' },
        allow_fallbacks: { type: ['boolean', 'null'] },
        require_parameters: { type: ['boolean', 'null'] },
        data_collection: { enum: ['allow', 'deny', null] },
        zdr: { type: ['boolean', 'null'] },
        enforce_distillable_text: { type: ['boolean', 'null'] },
        only: { $ref: 'defs#/$defs/providerList' },
        ignore: { $ref: 'defs#/$defs/providerList' },
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
            prompt: { $ref: 'defs#/$defs/price' },
            completion: { $ref: 'defs#/$defs/price' },
            image: { $ref: 'defs#/$defs/price' },
            audio: { $ref: 'defs#/$defs/price' },
            request: { $ref: 'defs#/$defs/price' },
          },
        },
        preferred_min_throughput: { $ref: 'defs#/$defs/percentiles' },
        preferred_max_latency: { $ref: 'defs#/$defs/percentiles' },
      },
    },
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
  },
} as const;
