/**
 * The objects the management answers are made of (Key, Workspace, Budget, Member), `$ref`d by the
 * response schemas as `defs.objects#/$defs/<name>`. Every field the server sends is listed and
 * required (nullable ones as null), so an answer with a field missing or added fails the schema.
 */

const usd = { type: 'number' } as const;
const instant = { type: 'string' } as const;
const nullableInstant = { type: ['string', 'null'] } as const;
const nullableText = { type: ['string', 'null'] } as const;
const budgetSettings = {
  id: { type: 'string' },
  workspace_id: { type: 'string' },
  limit_usd: usd,
  reset_interval: { enum: ['daily', 'weekly', 'monthly', 'lifetime'] },
  created_at: instant,
  updated_at: instant,
} as const;

export default {
  $id: 'defs.objects',
  $defs: {
    key: {
      type: 'object',
      additionalProperties: false,
      required: [
        'hash', 'name', 'label', 'disabled', 'limit', 'limit_remaining', 'limit_reset', 'include_byok_in_limit', 'usage', 'usage_daily',
        'usage_weekly', 'usage_monthly', 'byok_usage', 'byok_usage_daily', 'byok_usage_weekly', 'byok_usage_monthly', 'created_at',
        'updated_at', 'expires_at', 'creator_user_id', 'external_user', 'workspace_id',
      ],
      properties: {
        hash: { type: 'string' },
        name: { type: 'string' },
        label: { type: 'string' },
        disabled: { type: 'boolean' },
        limit: { type: ['number', 'null'] },
        limit_remaining: { type: ['number', 'null'] },
        limit_reset: { $ref: 'defs#/$defs/limitReset' },
        include_byok_in_limit: { type: 'boolean' },
        usage: usd,
        usage_daily: usd,
        usage_weekly: usd,
        usage_monthly: usd,
        byok_usage: usd,
        byok_usage_daily: usd,
        byok_usage_weekly: usd,
        byok_usage_monthly: usd,
        created_at: instant,
        updated_at: nullableInstant,
        expires_at: nullableInstant,
        creator_user_id: nullableText,
        external_user: nullableText,
        workspace_id: { type: 'string' },
      },
    },
    workspace: {
      type: 'object',
      additionalProperties: false,
      required: [
        'id', 'name', 'slug', 'description', 'default_text_model', 'default_image_model', 'default_provider_sort', 'default_guardrail_id',
        'is_observability_io_logging_enabled', 'is_observability_broadcast_enabled', 'is_data_discount_logging_enabled',
        'io_logging_sampling_rate', 'io_logging_api_key_ids', 'disabled_server_tools', 'include_byok_in_budgets',
        'is_embeddings_cache_enabled', 'created_at', 'updated_at', 'created_by',
      ],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        slug: { type: 'string' },
        description: nullableText,
        default_text_model: nullableText,
        default_image_model: nullableText,
        default_provider_sort: nullableText,
        default_guardrail_id: { type: 'string' },
        is_observability_io_logging_enabled: { type: 'boolean' },
        is_observability_broadcast_enabled: { type: 'boolean' },
        is_data_discount_logging_enabled: { type: 'boolean' },
        io_logging_sampling_rate: { type: 'number' },
        io_logging_api_key_ids: { type: ['array', 'null'], items: { type: 'integer' } },
        disabled_server_tools: { type: ['array', 'null'], items: { type: 'string' } },
        include_byok_in_budgets: { type: 'boolean' },
        is_embeddings_cache_enabled: { type: ['boolean', 'null'] },
        created_at: instant,
        updated_at: nullableInstant,
        created_by: nullableText,
      },
    },
    budgetSettings: {
      description: 'A budget as set (the answer of an upsert).',
      type: 'object',
      additionalProperties: false,
      required: ['id', 'workspace_id', 'limit_usd', 'reset_interval', 'created_at', 'updated_at'],
      properties: budgetSettings,
    },
    budget: {
      description: 'A budget as read: its settings and where it stands in its current period.',
      type: 'object',
      additionalProperties: false,
      required: ['id', 'workspace_id', 'limit_usd', 'reset_interval', 'created_at', 'updated_at', 'spent_usd', 'reserved_usd', 'period_start', 'resets_at'],
      properties: {
        ...budgetSettings,
        spent_usd: usd,
        reserved_usd: { type: ['number', 'null'], description: 'null: the budget store is unreachable' },
        period_start: nullableInstant,
        resets_at: nullableInstant,
      },
    },
    recent: {
      description: "The caller's organization's upstream attempts over the last window_minutes.",
      type: 'object',
      additionalProperties: false,
      required: ['window_minutes', 'attempts', 'failures', 'error_rate', 'avg_latency_ms'],
      properties: {
        window_minutes: { type: 'integer' },
        attempts: { type: 'integer' },
        failures: { type: 'integer' },
        error_rate: { type: ['number', 'null'] },
        avg_latency_ms: { type: ['number', 'null'] },
      },
    },
    providerEndpoint: {
      type: 'object',
      additionalProperties: false,
      required: ['model', 'model_name', 'circuit', 'recent'],
      properties: {
        model: { type: 'string' },
        model_name: { type: 'string' },
        circuit: {
          type: 'object',
          additionalProperties: false,
          required: ['state', 'consecutive_failures'],
          properties: {
            state: { enum: ['closed', 'half_open', 'open', 'unknown'] },
            consecutive_failures: { type: ['integer', 'null'] },
          },
        },
        recent: { $ref: 'defs.objects#/$defs/recent' },
      },
    },
    member: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'workspace_id', 'user_id', 'role', 'created_at'],
      properties: {
        id: { type: 'string' },
        workspace_id: { type: 'string' },
        user_id: { type: 'string' },
        role: { type: 'string' },
        created_at: instant,
      },
    },
  },
} as const;
