/** JSON Schema `classifiers.ref.params`: validates the request (src/http/validate.ts) and, through `Wire<'classifiers.ref.params'>`, types it. */

export default {
  $id: 'classifiers.ref.params',
  type: 'object',
  required: ['id', 'classifier_id'],
  properties: {
    id: { $ref: 'defs#/$defs/workspaceRef' },
    classifier_id: { type: 'string', minLength: 1, maxLength: 100 },
  },
} as const;
