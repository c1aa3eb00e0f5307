/** Shared definitions that request and response schemas `$ref` as `defs#/$defs/<name>`. */

export default {
  $id: 'defs',
  $defs: {
    uuid: { type: 'string', format: 'uuid' },
    workspaceRef: { type: 'string', minLength: 1, maxLength: 100 },
    keyHash: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
    utcDateTime: { type: 'string', format: 'date-time', pattern: '(Z|z|[+-]00:?00)$', maxLength: 64 },
    limitReset: { type: ['string', 'null'], enum: ['daily', 'weekly', 'monthly', null] },
  },
} as const;
