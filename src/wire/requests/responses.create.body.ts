/**
 * JSON Schema `responses.create.body`: POST /responses, OpenAI's Responses request as real clients
 * (Codex CLI, the Agents SDK, `client.responses.create`) send it, plus the hosted service's
 * `models`, `provider` and `session_id`. Stateless: `previous_response_id`, `conversation`,
 * `prompt` and `background: true` are refused by the door (src/responses/plan.ts), not here, so
 * their 400 can say what to send instead. Unknown top-level fields are accepted and ignored.
 */

const text = { type: 'string' } as const;
const id = { type: 'string', minLength: 1, maxLength: 512 } as const;
/** A tool's or function's name (as OpenAI's: letters, digits, `_`, `-`). */
const toolName = { type: 'string', pattern: '^[a-zA-Z0-9_.-]{1,128}$' } as const;

export default {
  $id: 'responses.create.body',
  type: 'object',
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    models: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 200 } },
    input: {
      anyOf: [{ $ref: '#/$defs/text' }, { type: 'array', maxItems: 10000, items: { $ref: '#/$defs/item' } }],
    },
    instructions: { anyOf: [{ $ref: '#/$defs/text' }, { type: 'null' }] },
    tools: { type: 'array', maxItems: 256, items: { $ref: '#/$defs/tool' } },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', minLength: 1, maxLength: 64 },
            name: { type: 'string', maxLength: 128 },
            mode: { enum: ['auto', 'required'] },
          },
        },
      ],
    },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    max_output_tokens: { type: ['integer', 'null'], minimum: 1, maximum: 10000000 },
    max_tool_calls: { type: ['integer', 'null'], minimum: 1 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    text: {
      type: ['object', 'null'],
      properties: {
        format: {
          anyOf: [
            {
              type: 'object',
              required: ['type'],
              additionalProperties: false,
              properties: { type: { enum: ['text', 'json_object'] } },
            },
            {
              type: 'object',
              required: ['type', 'name'],
              properties: {
                type: { const: 'json_schema' },
                name: { type: 'string', minLength: 1, maxLength: 64 },
                description: { type: 'string' },
                schema: { type: 'object' },
                strict: { type: ['boolean', 'null'] },
              },
            },
          ],
        },
        verbosity: { enum: ['low', 'medium', 'high', null] },
      },
    },
    reasoning: {
      type: ['object', 'null'],
      properties: {
        effort: { enum: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', null] },
        summary: { enum: ['auto', 'concise', 'detailed', null] },
        generate_summary: { enum: ['auto', 'concise', 'detailed', null] },
        max_tokens: { type: ['integer', 'null'], minimum: 0 },
      },
    },
    include: { type: ['array', 'null'], maxItems: 32, items: { type: 'string', maxLength: 128 } },
    prompt_cache_key: { type: ['string', 'null'], maxLength: 1024 },
    prompt_cache_retention: { type: ['string', 'null'], maxLength: 64 },
    client_metadata: { type: ['object', 'null'] },
    metadata: { type: ['object', 'null'], maxProperties: 16, additionalProperties: { type: 'string', maxLength: 512 } },
    user: { type: 'string', maxLength: 512 },
    safety_identifier: { type: ['string', 'null'], maxLength: 512 },
    service_tier: { type: ['string', 'null'], maxLength: 64 },
    truncation: { enum: ['auto', 'disabled', null] },
    stream: { type: ['boolean', 'null'] },
    stream_options: { type: ['object', 'null'] },
    store: { type: ['boolean', 'null'] },
    background: { type: ['boolean', 'null'] },
    previous_response_id: { type: ['string', 'null'], maxLength: 512 },
    session_id: { type: 'string', maxLength: 256 },
    provider: { $ref: 'defs#/$defs/providerPreferences' },
  },
  $defs: {
    text,
    /** A content part of a message item. */
    part: {
      anyOf: [
        {
          type: 'object',
          required: ['type', 'text'],
          properties: { type: { enum: ['input_text', 'output_text', 'text', 'summary_text'] }, text },
        },
        {
          type: 'object',
          required: ['type', 'refusal'],
          properties: { type: { const: 'refusal' }, refusal: text },
        },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { const: 'input_image' },
            image_url: { type: ['string', 'null'], pattern: '^(https?://|data:)' },
            file_id: { type: ['string', 'null'], maxLength: 512 },
            detail: { enum: ['auto', 'low', 'high', null] },
          },
        },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { const: 'input_file' },
            file_id: { type: ['string', 'null'], maxLength: 512 },
            file_data: { type: 'string' },
            file_url: { type: 'string' },
            filename: { type: 'string', maxLength: 1024 },
          },
        },
      ],
    },
    content: { anyOf: [text, { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/part' } }] },
    /** A tool's output: a string, or content parts. */
    output: { anyOf: [text, { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/part' } }] },
    item: {
      anyOf: [
        {
          type: 'object',
          required: ['role', 'content'],
          properties: {
            type: { const: 'message' },
            id,
            role: { enum: ['user', 'assistant', 'system', 'developer'] },
            content: { $ref: '#/$defs/content' },
          },
        },
        {
          type: 'object',
          required: ['type', 'call_id', 'name', 'arguments'],
          properties: {
            type: { const: 'function_call' },
            id,
            call_id: id,
            name: toolName,
            namespace: { type: 'string', maxLength: 128 },
            arguments: text,
          },
        },
        {
          type: 'object',
          required: ['type', 'call_id', 'output'],
          properties: {
            type: { enum: ['function_call_output', 'custom_tool_call_output'] },
            id,
            call_id: id,
            output: { $ref: '#/$defs/output' },
          },
        },
        {
          type: 'object',
          required: ['type', 'call_id', 'name', 'input'],
          properties: { type: { const: 'custom_tool_call' }, id, call_id: id, name: toolName, input: text },
        },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: { const: 'reasoning' },
            id,
            summary: {
              type: 'array',
              maxItems: 1000,
              items: { type: 'object', required: ['text'], properties: { text } },
            },
            content: {
              type: ['array', 'null'],
              maxItems: 1000,
              items: { type: 'object', required: ['text'], properties: { text } },
            },
            encrypted_content: { type: ['string', 'null'] },
          },
        },
      ],
    },
    functionTool: {
      type: 'object',
      required: ['type', 'name'],
      properties: {
        type: { const: 'function' },
        name: toolName,
        description: { type: ['string', 'null'] },
        parameters: { type: ['object', 'null'] },
        strict: { type: ['boolean', 'null'] },
      },
    },
    customTool: {
      type: 'object',
      required: ['type', 'name'],
      properties: {
        type: { const: 'custom' },
        name: toolName,
        description: { type: 'string' },
        format: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { enum: ['text', 'grammar'] },
            syntax: { enum: ['lark', 'regex'] },
            definition: { type: 'string' },
          },
        },
      },
    },
    namespaceTool: {
      type: 'object',
      required: ['type', 'name', 'tools'],
      properties: {
        type: { const: 'namespace' },
        name: toolName,
        description: { type: 'string' },
        tools: {
          type: 'array',
          maxItems: 256,
          items: { anyOf: [{ $ref: '#/$defs/functionTool' }, { $ref: '#/$defs/customTool' }] },
        },
      },
    },
    /**
     * A function, custom or namespace tool is checked as one (if/then, so a problem is named where
     * it is); any other type is a hosted tool (web_search, file_search, tool_search, computer_use,
     * mcp …), left out by the door (src/responses/tools.ts).
     */
    tool: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', minLength: 1, maxLength: 64 } },
      allOf: [
        { if: { properties: { type: { const: 'function' } } }, then: { $ref: '#/$defs/functionTool' } },
        { if: { properties: { type: { const: 'custom' } } }, then: { $ref: '#/$defs/customTool' } },
        { if: { properties: { type: { const: 'namespace' } } }, then: { $ref: '#/$defs/namespaceTool' } },
      ],
    },
  },
} as const;
