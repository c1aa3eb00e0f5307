/**
 * GET /models as Anthropic's list (`GET /v1/models`), answered when the caller sends
 * `anthropic-version` (the Anthropic SDKs and Claude Code do): the chat models, each with its
 * catalog id, display name and creation time, in one page.
 * @module
 */
import type { CatalogModel } from '../catalog/types';

/** The list of `models` in Anthropic's shape. */
export function anthropicModelList(models: readonly CatalogModel[]) {
  const data = models.map((m) => ({
    type: 'model',
    id: m.id,
    display_name: m.name,
    created_at: new Date(m.created * 1000).toISOString(),
  }));
  return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}
