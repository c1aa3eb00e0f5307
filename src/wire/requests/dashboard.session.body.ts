/** JSON Schema `dashboard.session.body`: validates the request (src/http/validate.ts) and, through `Wire<'dashboard.session.body'>`, types it. */

export default {
  $id: 'dashboard.session.body',
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  properties: { key: { type: 'string', minLength: 1, maxLength: 256 } },
} as const;
