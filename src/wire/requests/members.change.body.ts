/** JSON Schema `members.change.body`: validates the request (src/http/validate.ts) and, through `Wire<'members.change.body'>`, types it. */

export default {
  $id: 'members.change.body',
  type: 'object',
  additionalProperties: false,
  required: ['user_ids'],
  properties: {
    user_ids: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const;
