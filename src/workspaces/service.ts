/**
 * Workspace operations of the management API, scoped to the caller's organization: another
 * organization's workspace is simply not found. Slugs are unique among an organization's live
 * workspaces (duplicate → 409) and may not look like a UUID (400: it could never be addressed).
 * The default workspace cannot be deleted (403), and a workspace that still holds live API keys
 * cannot either (409), so no key is ever orphaned; a deleted workspace takes its budgets,
 * memberships and files with it.
 * @module
 */
import { isUuid } from '../validation/formats';
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../store/db';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import * as repo from './repository';
import type { RowLock, WorkspaceRecord, WorkspaceSettings } from './repository';
import type { Wire } from '../wire';

/** Validated body of `PATCH /workspaces/{id}` (schema `workspaces.update.body`; the create body adds `required`). */
export type WorkspaceInput = Wire<'workspaces.update.body'>;

function toSettings(i: WorkspaceInput): WorkspaceSettings {
  return {
    name: i.name,
    slug: i.slug,
    description: i.description,
    defaultTextModel: i.default_text_model,
    defaultImageModel: i.default_image_model,
    defaultProviderSort: i.default_provider_sort,
    isObservabilityIoLoggingEnabled: i.is_observability_io_logging_enabled,
    isObservabilityBroadcastEnabled: i.is_observability_broadcast_enabled,
    isDataDiscountLoggingEnabled: i.is_data_discount_logging_enabled,
    ioLoggingSamplingRate: i.io_logging_sampling_rate,
    ioLoggingApiKeyIds: i.io_logging_api_key_ids,
    disabledServerTools: i.disabled_server_tools,
    embeddingsCacheEnabled: i.is_embeddings_cache_enabled,
  };
}

/**
 * Refuse a UUID-shaped slug (e.g. `11111111-2222-3333-4444-555555555555`, which the slug pattern
 * allows): every `{id}` that looks like a UUID is looked up as an id, so such a workspace could
 * never be addressed by its slug.
 */
function refuseUuidSlug(slug: string | undefined): void {
  if (slug !== undefined && isUuid(slug)) {
    throw new ValidationError(
      [{ path: 'body.slug', message: 'must not be shaped like a UUID' }],
      'slug must not be shaped like a UUID: a UUID-shaped reference always addresses a workspace by its id',
    );
  }
}

function duplicateSlug(slug: string | undefined): ConflictError {
  return new ConflictError(`A workspace with slug "${slug ?? ''}" already exists in this organization`, { slug });
}

/**
 * A live workspace of the organization by UUID or slug, or 404.
 * @param lock - row lock held until the surrounding transaction ends (see `RowLock`)
 */
export async function requireWorkspace(
  q: Queryable,
  orgId: string,
  ref: string,
  lock: RowLock = 'none',
): Promise<WorkspaceRecord> {
  const ws = await repo.findWorkspace(q, orgId, ref, lock);
  if (!ws) throw new NotFoundError();
  return ws;
}

/**
 * Removes what else a workspace holds (its files) inside the delete transaction, so a deleted
 * workspace leaves nothing stored that no route could reach any more.
 */
export type WorkspaceContentsPurger = (tx: Queryable, ws: WorkspaceRecord) => Promise<void>;

/** Workspace CRUD bound to one database. */
export class WorkspaceService {
  /**
   * @param purgeContents - deletes the workspace's files with it (same transaction)
   */
  constructor(
    private readonly db: Database,
    private readonly purgeContents: WorkspaceContentsPurger = () => Promise.resolve(),
  ) {}

  /** Create a workspace; 409 on a duplicate slug. */
  async create(
    orgId: string,
    input: Wire<'workspaces.create.body'>,
    createdBy: string | null,
  ): Promise<WorkspaceRecord> {
    refuseUuidSlug(input.slug);
    try {
      return await repo.insertWorkspace(this.db, {
        ...toSettings(input),
        id: randomUUID(),
        orgId,
        name: input.name,
        slug: input.slug,
        createdBy,
      });
    } catch (err) {
      if (repo.isUniqueViolation(err)) throw duplicateSlug(input.slug);
      throw err;
    }
  }

  /** One page of workspaces with the total count. */
  list(orgId: string, offset: number, limit: number) {
    return repo.listWorkspaces(this.db, orgId, offset, limit);
  }

  /** One workspace by UUID or slug. */
  get(orgId: string, ref: string): Promise<WorkspaceRecord> {
    return requireWorkspace(this.db, orgId, ref);
  }

  /** Change settings; 409 when the new slug is taken. */
  async update(orgId: string, ref: string, input: WorkspaceInput): Promise<WorkspaceRecord> {
    refuseUuidSlug(input.slug);
    const ws = await requireWorkspace(this.db, orgId, ref);
    try {
      const updated = await repo.updateWorkspace(this.db, orgId, ws.id, toSettings(input));
      if (!updated) throw new NotFoundError();
      return updated;
    } catch (err) {
      if (repo.isUniqueViolation(err)) throw duplicateSlug(input.slug);
      throw err;
    }
  }

  /**
   * Delete a workspace with its budgets, memberships and files, all in one transaction. Refused
   * for the default workspace (403) and while live keys remain (409). The `FOR UPDATE` row lock
   * serialises against key creation and uploads, which share-lock the same live row: whichever
   * commits first, the other sees it (the key is counted here, or the creation finds no workspace).
   */
  async delete(orgId: string, ref: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, ref, 'update');
      if (ws.isDefault) throw new ForbiddenError('The default workspace cannot be deleted');
      const live = await repo.countLiveKeys(tx, ws.id);
      if (live > 0) {
        throw new ConflictError(`Workspace has ${live} active API key(s); delete them before deleting the workspace`, {
          active_key_count: live,
        });
      }
      if (!(await repo.softDeleteWorkspace(tx, orgId, ws.id))) throw new NotFoundError();
      await this.purgeContents(tx, ws);
    });
  }
}
