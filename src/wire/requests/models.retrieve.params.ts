/**
 * JSON Schema `models.retrieve.params`: GET /models/{model}, the OpenAI SDK's `models.retrieve`,
 * which sends the model id as one path segment (`openai%2Fgpt-4o`).
 */

export default {
  $id: 'models.retrieve.params',
  type: 'object',
  required: ['model'],
  properties: {
    model: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}/[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$' },
  },
} as const;
