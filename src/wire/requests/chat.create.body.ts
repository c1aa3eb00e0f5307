/**
 * JSON Schema `chat.create.body`: validates the request (src/http/validate.ts) and, through
 * `Wire<'chat.create.body'>`, types it. POST /chat/completions: OpenAI's chat request plus the
 * hosted service's provider, models, session_id, usage and transforms. `model` or `models` must be set
 * (checked by the plan: a schema-level anyOf of requireds is refused by ajv's strict mode).
 */

export default {
  $id: 'chat.create.body',
  type: 'object',
  required: ['messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    models: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 200 } },
    messages: { type: 'array', minItems: 1, maxItems: 10000, items: { $ref: '#/$defs/message' } },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'], properties: { include_usage: { type: ['boolean', 'null'] } } },
    max_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 10000000 },
    max_completion_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 10000000 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    top_k: { type: ['integer', 'null'], minimum: 0 },
    frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    repetition_penalty: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    min_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    seed: { type: ['integer', 'null'] },
    // An empty stop sequence stops nothing, and upstreams refuse it: refused here, before any call.
    // Whitespace ones ("\n") are common and valid on OpenAI-format upstreams, so they pass.
    stop: {
      anyOf: [
        { type: 'string', minLength: 1, maxLength: 1000 },
        { type: 'array', maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 1000 } },
        { type: 'null' },
      ],
    },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    logit_bias: {
      type: ['object', 'null'],
      maxProperties: 1024,
      propertyNames: { pattern: '^[0-9]{1,9}$' },
      additionalProperties: { type: 'number', minimum: -100, maximum: 100 },
    },
    response_format: {
      anyOf: [
        {
          type: 'object',
          required: ['type'],
          additionalProperties: false,
          properties: { type: { enum: ['text', 'json_object'] } },
        },
        {
          type: 'object',
          required: ['type', 'json_schema'],
          additionalProperties: false,
          properties: {
            type: { const: 'json_schema' },
            json_schema: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 64 },
                description: { type: 'string' },
                schema: { type: 'object' },
                strict: { type: ['boolean', 'null'] },
              },
            },
          },
        },
      ],
    },
    tools: { type: 'array', maxItems: 128, items: { $ref: '#/$defs/tool' } },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          additionalProperties: false,
          properties: {
            type: { const: 'function' },
            function: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
            },
          },
        },
      ],
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    reasoning: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', null] },
        max_tokens: { type: ['integer', 'null'], minimum: 0, maximum: 10000000 },
        exclude: { type: ['boolean', 'null'] },
        enabled: { type: ['boolean', 'null'] },
      },
    },
    reasoning_effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', null] },
    include_reasoning: { type: ['boolean', 'null'] },
    // Sent only to endpoints whose catalog entry lists them (src/providers/openai/chat-request.ts).
    prediction: {
      type: ['object', 'null'],
      required: ['type', 'content'],
      properties: { type: { const: 'content' }, content: { anyOf: [{ $ref: '#/$defs/text' }, { type: 'array' }] } },
    },
    service_tier: { enum: ['auto', 'default', 'flex', 'priority', 'scale', null] },
    prompt_cache_key: { type: ['string', 'null'], maxLength: 1024 },
    verbosity: { enum: ['low', 'medium', 'high', null] },
    web_search_options: { type: ['object', 'null'] },
    top_a: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    // Output modalities: audio output is served by no endpoint of the catalog (src/chat/format-rule.ts).
    modalities: { type: ['array', 'null'], maxItems: 2, items: { enum: ['text', 'audio'] } },
    audio: { type: ['object', 'null'] },
    n: {
      type: 'integer',
      minimum: 1,
      maximum: 16,
      description: 'Choices per request; above 1 only endpoints that list `n` serve it (at most 16)',
    },
    user: { type: 'string', maxLength: 512 },
    session_id: { type: 'string', maxLength: 256 },
    trace: { type: 'object' },
    metadata: { type: 'object', maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } },
    usage: { type: 'object', properties: { include: { type: 'boolean' } } },
    transforms: { type: 'array', maxItems: 16, items: { type: 'string', maxLength: 100 } },
    provider: { $ref: 'defs#/$defs/providerPreferences' },
    cache_control: {
      description:
        'Automatic prompt caching: Anthropic-format upstreams get it as their top-level cache_control (the breakpoint on the last cacheable block); the others cache prompts unasked',
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { const: 'ephemeral' }, ttl: { enum: ['5m', '1h'] } },
    },
  },
  $defs: {
    text: { type: 'string' },
    nullableText: { type: ['string', 'null'] },
    content: { anyOf: [{ $ref: '#/$defs/text' }, { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/part' } }] },
    part: {
      anyOf: [
        {
          type: 'object',
          required: ['type', 'text'],
          properties: {
            type: { const: 'text' },
            text: { $ref: '#/$defs/text' },
            cache_control: {
              type: 'object',
              required: ['type'],
              properties: { type: { const: 'ephemeral' }, ttl: { enum: ['5m', '1h'] } },
            },
          },
        },
        {
          type: 'object',
          required: ['type', 'image_url'],
          properties: {
            type: { const: 'image_url' },
            image_url: {
              type: 'object',
              required: ['url'],
              properties: {
                url: { type: 'string', pattern: '^(https?://|data:)' },
                detail: { enum: ['auto', 'low', 'high'] },
              },
            },
          },
        },
        {
          // A document: inline (`file_data`, a data: URL) or a file of the caller's workspace (`file_id`).
          type: 'object',
          required: ['type', 'file'],
          properties: {
            type: { const: 'file' },
            file: {
              type: 'object',
              properties: {
                filename: { type: 'string', maxLength: 512 },
                file_data: { type: 'string', pattern: '^data:[^;,]+;base64,' },
                file_id: { type: 'string', minLength: 1, maxLength: 128 },
              },
            },
          },
        },
        {
          type: 'object',
          required: ['type', 'input_audio'],
          properties: {
            type: { const: 'input_audio' },
            input_audio: {
              type: 'object',
              required: ['data', 'format'],
              properties: {
                data: { type: 'string', minLength: 1 },
                format: { type: 'string', minLength: 1, maxLength: 20 },
              },
            },
          },
        },
      ],
    },
    // One reasoning block as answers give it (text with its signature, a summary, or encrypted
    // data), sent back on the next turn so the provider that wrote it can check it.
    reasoningDetail: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['reasoning.text', 'reasoning.summary', 'reasoning.encrypted'] },
        id: { type: ['string', 'null'], maxLength: 256 },
        format: { type: ['string', 'null'], maxLength: 64 },
        index: { type: ['integer', 'null'], minimum: 0 },
        text: { $ref: '#/$defs/nullableText' },
        summary: { $ref: '#/$defs/nullableText' },
        signature: { $ref: '#/$defs/nullableText' },
        data: { $ref: '#/$defs/text' },
      },
    },
    toolCall: {
      type: 'object',
      required: ['id', 'type', 'function'],
      properties: {
        id: { type: 'string', minLength: 1, maxLength: 256 },
        type: { const: 'function' },
        function: {
          type: 'object',
          required: ['name', 'arguments'],
          properties: { name: { type: 'string', minLength: 1, maxLength: 64 }, arguments: { type: 'string' } },
        },
      },
    },
    message: {
      anyOf: [
        {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            role: { enum: ['system', 'developer', 'user'] },
            content: { $ref: '#/$defs/content' },
            name: { type: 'string', maxLength: 256 },
          },
        },
        {
          type: 'object',
          required: ['role'],
          properties: {
            role: { const: 'assistant' },
            content: { anyOf: [{ $ref: '#/$defs/content' }, { type: 'null' }] },
            name: { type: 'string', maxLength: 256 },
            refusal: { type: ['string', 'null'] },
            tool_calls: { type: 'array', maxItems: 128, items: { $ref: '#/$defs/toolCall' } },
            reasoning: { $ref: '#/$defs/nullableText' },
            reasoning_details: { type: ['array', 'null'], maxItems: 1000, items: { $ref: '#/$defs/reasoningDetail' } },
          },
        },
        {
          type: 'object',
          required: ['role', 'content', 'tool_call_id'],
          properties: {
            role: { const: 'tool' },
            content: { $ref: '#/$defs/content' },
            tool_call_id: { type: 'string', minLength: 1, maxLength: 256 },
          },
        },
      ],
    },
    tool: {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { const: 'function' },
        function: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
            description: { type: 'string' },
            parameters: { type: 'object' },
            strict: { type: ['boolean', 'null'] },
          },
        },
      },
    },
  },
} as const;
