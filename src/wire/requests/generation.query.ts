/** JSON Schema `generation.query`: validates the request (src/http/validate.ts) and, through `Wire<'generation.query'>`, types it. */

export default {
  $id: 'generation.query',
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 256, pattern: '\\S' } },
} as const;
