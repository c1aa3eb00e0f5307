/**
 * JSON Schema `messages.create.body`: validates POST /messages (src/http/validate.ts) and, through
 * `Wire<'messages.create.body'>`, types it. Anthropic's Messages request plus the hosted service's
 * `models`, `provider` and `session_id`. Open by design: Claude Code sends new top-level fields and
 * block types every month, so unknown fields are accepted (they reach Anthropic-format upstreams
 * as sent) and a block of an unknown `type` is accepted as long as it names one; only the shapes
 * the gateway reads are checked.
 */

/** The block types this schema knows the shape of; any other `type` is an unknown block. */
export const KNOWN_BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
] as const;

const cacheControl = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string', minLength: 1, maxLength: 64 }, ttl: { type: 'string', maxLength: 16 } },
} as const;

const text = { type: 'string' } as const;

export default {
  $id: 'messages.create.body',
  type: 'object',
  required: ['messages', 'max_tokens'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    models: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 200 } },
    messages: { type: 'array', minItems: 1, maxItems: 10000, items: { $ref: '#/$defs/message' } },
    system: {
      anyOf: [text, { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/textBlock' } }],
    },
    max_tokens: { type: 'integer', minimum: 1, maximum: 10000000 },
    metadata: {
      type: 'object',
      properties: { user_id: { type: ['string', 'null'], maxLength: 4096 } },
    },
    stop_sequences: { type: 'array', maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 1000 } },
    stream: { type: 'boolean' },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
    top_p: { type: 'number', minimum: 0, maximum: 1 },
    top_k: { type: 'integer', minimum: 0 },
    tools: { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/tool' } },
    tool_choice: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['auto', 'any', 'tool', 'none'] },
        name: { type: 'string', minLength: 1, maxLength: 256 },
        disable_parallel_tool_use: { type: 'boolean' },
      },
    },
    thinking: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { type: 'string', minLength: 1, maxLength: 64 },
        budget_tokens: { type: 'integer', minimum: 0 },
      },
    },
    output_config: { type: 'object' },
    context_management: { type: 'object' },
    service_tier: { type: 'string', maxLength: 64 },
    container: { anyOf: [{ type: 'string', maxLength: 256 }, { type: 'object' }, { type: 'null' }] },
    mcp_servers: { type: 'array', maxItems: 256, items: { type: 'object' } },
    session_id: { type: 'string', maxLength: 256 },
    cache_control: cacheControl,
    provider: { $ref: 'defs#/$defs/providerPreferences' },
  },
  $defs: {
    textBlock: {
      type: 'object',
      required: ['type', 'text'],
      properties: {
        type: { const: 'text' },
        text,
        cache_control: cacheControl,
        citations: { type: ['array', 'null'] },
      },
    },
    imageBlock: {
      type: 'object',
      required: ['type', 'source'],
      properties: {
        type: { const: 'image' },
        cache_control: cacheControl,
        source: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { enum: ['base64', 'url', 'file'] },
            media_type: { type: 'string', maxLength: 100 },
            data: { type: 'string' },
            url: { type: 'string' },
            file_id: { type: 'string', maxLength: 256 },
          },
        },
      },
    },
    block: {
      anyOf: [
        { $ref: '#/$defs/textBlock' },
        { $ref: '#/$defs/imageBlock' },
        {
          type: 'object',
          required: ['type', 'source'],
          properties: { type: { const: 'document' }, source: { type: 'object' }, cache_control: cacheControl },
        },
        {
          type: 'object',
          required: ['type', 'id', 'name', 'input'],
          properties: {
            type: { const: 'tool_use' },
            id: { type: 'string', minLength: 1, maxLength: 256 },
            name: { type: 'string', minLength: 1, maxLength: 256 },
            input: {},
            cache_control: cacheControl,
          },
        },
        {
          type: 'object',
          required: ['type', 'tool_use_id'],
          properties: {
            type: { const: 'tool_result' },
            tool_use_id: { type: 'string', minLength: 1, maxLength: 256 },
            content: {
              anyOf: [
                text,
                {
                  type: 'array',
                  maxItems: 1000,
                  items: {
                    type: 'object',
                    required: ['type'],
                    properties: { type: { type: 'string', minLength: 1, maxLength: 100 }, text },
                  },
                },
              ],
            },
            is_error: { type: 'boolean' },
            cache_control: cacheControl,
          },
        },
        {
          type: 'object',
          required: ['type', 'thinking'],
          properties: { type: { const: 'thinking' }, thinking: text, signature: { type: 'string' } },
        },
        {
          type: 'object',
          required: ['type', 'data'],
          properties: { type: { const: 'redacted_thinking' }, data: { type: 'string' } },
        },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', minLength: 1, maxLength: 100, not: { enum: KNOWN_BLOCK_TYPES } },
          },
        },
      ],
    },
    message: {
      type: 'object',
      required: ['role', 'content'],
      properties: {
        role: { enum: ['user', 'assistant'] },
        content: { anyOf: [text, { type: 'array', maxItems: 10000, items: { $ref: '#/$defs/block' } }] },
      },
    },
    tool: {
      anyOf: [
        {
          type: 'object',
          required: ['name', 'input_schema'],
          properties: {
            type: { enum: ['custom'] },
            name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,128}$' },
            description: { type: 'string' },
            input_schema: { type: 'object' },
            cache_control: cacheControl,
          },
        },
        {
          type: 'object',
          required: ['type', 'name'],
          properties: {
            type: { type: 'string', minLength: 1, maxLength: 100, not: { const: 'custom' } },
            name: { type: 'string', minLength: 1, maxLength: 128 },
          },
        },
      ],
    },
  },
} as const;
