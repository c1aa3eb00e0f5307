/** JSON Schema `datasets.rankings.query`: validates the request (src/http/validate.ts) and, through `Wire<'datasets.rankings.query'>`, types it. */

export default {
  $id: 'datasets.rankings.query',
  description:
    'GET /datasets/rankings-daily. Unknown parameters are refused (a misspelt filter would otherwise answer unfiltered data). Dates are checked as calendar dates and combinations in src/datasets/params.ts.',
  type: 'object',
  additionalProperties: false,
  properties: {
    start_date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    end_date: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    period: { enum: ['day', 'week', 'month'] },
    modality: { enum: ['text', 'image', 'image_output', 'audio', 'tool_calling'] },
    context_bucket: { enum: ['1K', '10K', '100K', '1M', '10M'] },
    category: {
      enum: [
        'programming',
        'roleplay',
        'marketing',
        'marketing/seo',
        'technology',
        'science',
        'translation',
        'legal',
        'finance',
        'health',
        'trivia',
        'academia',
      ],
    },
    language_type: { enum: ['natural', 'programming'] },
  },
} as const;
