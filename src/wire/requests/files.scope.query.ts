/** JSON Schema `files.scope.query`: validates the request (src/http/validate.ts) and, through `Wire<'files.scope.query'>`, types it. */

export default {
  $id: 'files.scope.query',
  type: 'object',
  properties: {
    workspace_id: { $ref: 'defs#/$defs/uuid' },
    provider: {
      type: 'string',
      maxLength: 100,
      description:
        'Hosted-service BYOK provider files (openai|anthropic); accepted here only to be refused with a clear 400 (src/files/provider.ts), never ignored.',
    },
  },
} as const;
