/**
 * JSON Schema `messages.count_tokens.body`: POST /messages/count_tokens, Anthropic's count request:
 * the Messages request without `max_tokens` (its `messages`, `system`, `tools`, `thinking` …, the
 * same shapes as `messages.create.body`, unknown fields accepted).
 */
import create from './messages.create.body';

export default {
  $id: 'messages.count_tokens.body',
  type: 'object',
  required: ['messages'],
  properties: {
    model: create.properties.model,
    messages: { type: 'array', minItems: 1, maxItems: 10000, items: { $ref: '#/$defs/message' } },
    system: {
      anyOf: [{ type: 'string' }, { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/textBlock' } }],
    },
    tools: { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/tool' } },
  },
  $defs: create.$defs,
} as const;
