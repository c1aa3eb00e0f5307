/**
 * `GET /datasets/rankings-daily` as a service: resolve the request, read the rollup in the
 * configured scope, rank, and stamp `meta` with the rollup's time.
 * @module
 */
import type { Config } from '../config';
import type { CatalogModel } from '../catalog/types';
import type { Queryable } from '../store/db';
import { formatDay } from './dates';
import { resolveRankingsRequest, type RankingsQuery } from './params';
import { queryBucketTotals } from './query';
import { rankRows, type ModelFace } from './rank';
import type { RankingsAnswer, RankingsScope } from './types';
import type { RankingsRollup } from './rollup';

/** `meta.as_of` before any rollup has run: the epoch, so "never" cannot be mistaken for fresh data. */
export const NEVER_ROLLED = new Date(0).toISOString();

/**
 * How each model id appears: the catalog's permaslug and public flag. Ids the catalog does not
 * list (records of a model since removed) are named by their id.
 */
export function catalogFaces(models: readonly CatalogModel[]): (model: string) => ModelFace {
  const faces = new Map(models.map((m) => [m.id.toLowerCase(), { permaslug: m.permaslug, public: m.public }]));
  return (model) => faces.get(model.toLowerCase()) ?? { permaslug: model, public: true };
}

/** Answers rankings requests from the rollup tables. */
export class RankingsService {
  constructor(
    private readonly db: Queryable,
    private readonly rollup: Pick<RankingsRollup, 'asOf'>,
    private readonly faceOf: (model: string) => ModelFace,
    private readonly config: Config['rankings'],
    private readonly clock: () => number,
  ) {}

  /** The scope a caller of organization `orgId` reads in. */
  scopeFor(orgId: string): RankingsScope {
    return this.config.scope === 'installation' ? { kind: 'installation', minOrgs: this.config.minOrganizations } : { kind: 'org', orgId };
  }

  /**
   * The answer for a schema-valid query.
   * @throws ValidationError for dates or combinations the spec refuses
   */
  async read(orgId: string, query: RankingsQuery): Promise<RankingsAnswer> {
    const req = resolveRankingsRequest(query, this.clock());
    const [totals, asOf] = await Promise.all([queryBucketTotals(this.db, req, this.scopeFor(orgId)), this.rollup.asOf()]);
    return {
      data: rankRows(totals, this.faceOf),
      meta: { as_of: asOf?.toISOString() ?? NEVER_ROLLED, start_date: formatDay(req.startDay), end_date: formatDay(req.endDay), version: 'v1' },
    };
  }
}
