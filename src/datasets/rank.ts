/**
 * Row rules 1–3 of the dataset: per date the top 50 public models by tokens, ties broken by
 * permaslug, then one `other` row with everything else (models below the top 50, non-public
 * models, models under the installation threshold), omitted when that is zero.
 * @module
 */
import type { BucketTotal } from './query';
import type { RankingRow } from './types';

/** Real models per date before the rest becomes `other`. */
export const TOP_MODELS = 50;
/** The reserved permaslug of the long tail. */
export const OTHER = 'other';

/** How a model id appears in the dataset. */
export interface ModelFace {
  permaslug: string;
  public: boolean;
}

/** Rank bucket totals (any order) into answer rows. */
export function rankRows(totals: readonly BucketTotal[], faceOf: (model: string) => ModelFace): RankingRow[] {
  const byDate = new Map<string, { models: Map<string, bigint>; other: bigint }>();
  for (const t of totals) {
    let entry = byDate.get(t.date);
    if (!entry) byDate.set(t.date, (entry = { models: new Map(), other: 0n }));
    const tokens = BigInt(t.tokens);
    const face = t.model === null ? null : faceOf(t.model);
    // A model named `other` in the catalog would collide with the reserved row: it counts there.
    if (!face || !face.public || face.permaslug === OTHER) entry.other += tokens;
    else entry.models.set(face.permaslug, (entry.models.get(face.permaslug) ?? 0n) + tokens);
  }
  const rows: RankingRow[] = [];
  for (const date of [...byDate.keys()].sort()) {
    const { models, other } = byDate.get(date) as { models: Map<string, bigint>; other: bigint };
    const ranked = [...models].filter(([, tokens]) => tokens > 0n).sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : a > b ? 1 : 0) : x > y ? -1 : 1));
    let rest = other;
    ranked.forEach(([permaslug, tokens], i) => {
      if (i < TOP_MODELS) rows.push({ date, model_permaslug: permaslug, total_tokens: tokens.toString() });
      else rest += tokens;
    });
    if (rest > 0n) rows.push({ date, model_permaslug: OTHER, total_tokens: rest.toString() });
  }
  return rows;
}
