/** JSON Schema `keys.create.body`: validates the request (src/http/validate.ts) and, through `Wire<'keys.create.body'>`, types it. */

export default {
  $id: 'keys.create.body',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    limit: { type: ['number', 'null'], minimum: 0, maximum: 1000000000 },
    limit_reset: { $ref: 'defs#/$defs/limitReset' },
    include_byok_in_limit: { type: 'boolean' },
    expires_at: { anyOf: [{ $ref: 'defs#/$defs/utcDateTime' }, { type: 'null' }] },
    workspace_id: { $ref: 'defs#/$defs/workspaceRef' },
    creator_user_id: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    external: {
      type: 'object',
      additionalProperties: false,
      required: ['user'],
      properties: {
        user: { type: 'string', minLength: 1, maxLength: 200 },
        api_key: { type: 'string', minLength: 32, maxLength: 512 },
      },
    },
  },
} as const;
