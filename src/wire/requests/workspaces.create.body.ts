/**
 * JSON Schema `workspaces.create.body`: validates the request (src/http/validate.ts) and, through
 * `Wire<'workspaces.create.body'>`, types it. The fields are the update body's; creating requires a name and a slug.
 */
import updateBody from './workspaces.update.body';

export default {
  $id: 'workspaces.create.body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'slug'],
  properties: updateBody.properties,
} as const;
