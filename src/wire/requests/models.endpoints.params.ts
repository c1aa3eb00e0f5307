/** JSON Schema `models.endpoints.params`: validates the request (src/http/validate.ts) and, through `Wire<'models.endpoints.params'>`, types it. */

export default {
  $id: 'models.endpoints.params',
  type: 'object',
  required: ['author', 'slug'],
  properties: {
    author: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' },
    slug: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$' },
  },
} as const;
