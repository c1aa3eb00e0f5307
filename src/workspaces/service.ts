/**
 * Workspace operations of the management API, scoped to the caller's organization: another
 * organization's workspace is simply not found. Slugs are unique among an organization's live
 * workspaces (duplicate → 409). The default workspace cannot be deleted (403), and a workspace
 * that still holds live API keys cannot either (409), so no key is ever orphaned.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../store/db';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import * as repo from './repository';
import type { WorkspaceRecord, WorkspaceSettings } from './repository';

/** Validated body of `POST /workspaces` / `PATCH /workspaces/{id}` (snake_case, as on the wire). */
export interface WorkspaceInput {
  name?: string;
  slug?: string;
  description?: string | null;
  default_text_model?: string | null;
  default_image_model?: string | null;
  default_provider_sort?: string | null;
  is_observability_io_logging_enabled?: boolean;
  is_observability_broadcast_enabled?: boolean;
  is_data_discount_logging_enabled?: boolean;
  io_logging_sampling_rate?: number;
  io_logging_api_key_ids?: number[] | null;
  disabled_server_tools?: string[] | null;
}

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
  };
}

function duplicateSlug(slug: string | undefined): ConflictError {
  return new ConflictError(`A workspace with slug "${slug ?? ''}" already exists in this organization`, { slug });
}

/** A live workspace of the organization by UUID or slug, or 404. */
export async function requireWorkspace(q: Queryable, orgId: string, ref: string, forUpdate = false): Promise<WorkspaceRecord> {
  const ws = await repo.findWorkspace(q, orgId, ref, forUpdate);
  if (!ws) throw new NotFoundError();
  return ws;
}

/** Workspace CRUD bound to one database. */
export class WorkspaceService {
  constructor(private readonly db: Database) {}

  /** Create a workspace; 409 on a duplicate slug. */
  async create(orgId: string, input: WorkspaceInput & { name: string; slug: string }, createdBy: string | null): Promise<WorkspaceRecord> {
    try {
      return await repo.insertWorkspace(this.db, { ...toSettings(input), id: randomUUID(), orgId, name: input.name, slug: input.slug, createdBy });
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
   * Delete a workspace with its budgets and memberships. Refused for the default workspace
   * (403) and while live keys remain (409). The row lock serialises against key creation,
   * whose foreign-key check needs a share lock on the same row.
   */
  async delete(orgId: string, ref: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, ref, true);
      if (ws.isDefault) throw new ForbiddenError('The default workspace cannot be deleted');
      const live = await repo.countLiveKeys(tx, ws.id);
      if (live > 0) {
        throw new ConflictError(`Workspace has ${live} active API key(s); delete them before deleting the workspace`, { active_key_count: live });
      }
      if (!(await repo.softDeleteWorkspace(tx, orgId, ws.id))) throw new NotFoundError();
    });
  }
}
