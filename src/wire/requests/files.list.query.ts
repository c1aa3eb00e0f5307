/**
 * JSON Schema `files.list.query`: validates the request (src/http/validate.ts) and, through
 * `Wire<'files.list.query'>`, types it. Paging, plus the scope every files route takes.
 */
import scopeQuery from './files.scope.query';

export default {
  $id: 'files.list.query',
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
    cursor: { type: 'string', minLength: 1, maxLength: 200 },
    after: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'OpenAI-style forward cursor: the id of the file to list after.',
    },
    after_id: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Anthropic-style forward cursor: the id of the file to list after.',
    },
    before_id: {
      type: 'string',
      maxLength: 128,
      description:
        "Anthropic-style reverse cursor. As on the hosted service's own storage, listings only run forward (oldest first), so it is refused with a 400 (FileService.list), never ignored.",
    },
    order: {
      enum: ['asc'],
      description: "Only ascending (upload order) is supported, as for the hosted service's own storage.",
    },
    ...scopeQuery.properties,
  },
} as const;
