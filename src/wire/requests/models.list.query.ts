/** JSON Schema `models.list.query`: validates the request (src/http/validate.ts) and, through `Wire<'models.list.query'>`, types it. */

export default {
  $id: 'models.list.query',
  type: 'object',
  properties: {
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: 1000000,
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
    },
    output_modalities: {
      type: 'string',
      maxLength: 200,
      pattern: '^\\s*(text|image|audio|embeddings|all)\\s*(,\\s*(text|image|audio|embeddings|all)\\s*)*$',
    },
    input_modalities: {
      type: 'string',
      maxLength: 200,
      pattern: '^\\s*(text|image|audio|video|file)\\s*(,\\s*(text|image|audio|video|file)\\s*)*$',
    },
    supported_parameters: {
      type: 'string',
      maxLength: 256,
      pattern: '^[a-z_]+(,[a-z_]+)*$',
    },
    q: {
      type: 'string',
      maxLength: 200,
    },
    context: {
      type: 'integer',
      minimum: 0,
      maximum: 100000000,
    },
    min_price: {
      type: 'number',
      minimum: 0,
      maximum: 1000000,
    },
    max_price: {
      type: 'number',
      minimum: 0,
      maximum: 1000000,
    },
    min_output_price: {
      type: 'number',
      minimum: 0,
      maximum: 1000000,
    },
    max_output_price: {
      type: 'number',
      minimum: 0,
      maximum: 1000000,
    },
    model_authors: {
      type: 'string',
      maxLength: 256,
    },
    providers: {
      type: 'string',
      maxLength: 256,
    },
    arch: {
      type: 'string',
      maxLength: 100,
    },
    distillable: {
      enum: ['true', 'false'],
    },
    zdr: {
      enum: ['true'],
    },
    sort: {
      enum: [
        'newest',
        'pricing-low-to-high',
        'pricing-high-to-low',
        'context-high-to-low',
        'throughput-high-to-low',
        'latency-low-to-high',
      ],
    },
  },
} as const;
