/**
 * JSON Schema `classifiers.create.body`: validates the request (src/http/validate.ts) and, through
 * `Wire<'classifiers.create.body'>`, types it. The fields are the update body's; creating requires a name and dimensions.
 */
import updateBody from './classifiers.update.body';

export default {
  $id: 'classifiers.create.body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'dimensions'],
  properties: updateBody.properties,
} as const;
