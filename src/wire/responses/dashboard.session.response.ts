/** JSON Schema `dashboard.session.response`: the session the dashboard gets on sign-in and from `GET /dashboard/api/session`. */

export default {
  $id: 'dashboard.session.response',
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      additionalProperties: false,
      required: ['csrf_token', 'expires_at', 'key', 'rankings_scope'],
      properties: {
        csrf_token: { type: 'string' },
        expires_at: { type: 'string' },
        key: {
          type: 'object',
          additionalProperties: false,
          required: ['hash', 'name', 'label'],
          properties: { hash: { type: 'string' }, name: { type: 'string' }, label: { type: 'string' } },
        },
        rankings_scope: {
          description: 'Whose traffic the rankings dataset counts: installation scope publishes completed days only.',
          enum: ['organization', 'installation'],
        },
      },
    },
  },
} as const;
