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
import { OTHER, queryRankings, type CatalogFaces } from './query';
import type { RankingsAnswer, RankingsScope } from './types';
import type { RankingsRollup } from './rollup';

/** `meta.as_of` before any rollup has run: the epoch, so "never" cannot be mistaken for fresh data. */
export const NEVER_ROLLED = new Date(0).toISOString();

/**
 * How the catalog's models appear: permaslug and public flag per id (usage records store the
 * catalog's id as it is written there). Ids the catalog does not list (records of a model since
 * removed) are named by their id.
 */
export function catalogFaces(models: readonly CatalogModel[]): CatalogFaces {
  const renamed = models.filter((m) => m.permaslug !== m.id || !m.public);
  const special = new Set([OTHER, ...renamed.flatMap((m) => [m.id, m.permaslug])]);
  return {
    ids: models.map((m) => m.id),
    permaslugs: models.map((m) => m.permaslug),
    public: models.map((m) => m.public),
    special: [...special],
  };
}

/** Answers rankings requests from the rollup tables. */
export class RankingsService {
  constructor(
    private readonly db: Queryable,
    private readonly rollup: Pick<RankingsRollup, 'asOf'>,
    private readonly faces: CatalogFaces,
    private readonly config: Config['rankings'],
    private readonly clock: () => number,
  ) {}

  /** The scope a caller of organization `orgId` reads in. */
  scopeFor(orgId: string): RankingsScope {
    return this.config.scope === 'installation' ? { kind: 'installation' } : { kind: 'org', orgId };
  }

  /**
   * The answer for a schema-valid query.
   * @throws ValidationError for dates or combinations the spec refuses
   */
  async read(orgId: string, query: RankingsQuery): Promise<RankingsAnswer> {
    const req = resolveRankingsRequest(query, this.clock());
    const [data, asOf] = await Promise.all([
      queryRankings(this.db, req, this.scopeFor(orgId), this.faces),
      this.rollup.asOf(),
    ]);
    return {
      data,
      meta: {
        as_of: asOf?.toISOString() ?? NEVER_ROLLED,
        start_date: formatDay(req.startDay),
        end_date: formatDay(req.endDay),
        version: 'v1',
      },
    };
  }
}
