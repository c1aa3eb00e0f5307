/**
 * SQL for workspaces, always scoped by organization. A workspace is addressed by UUID or slug
 * everywhere, so lookups accept either.
 * @module
 */
import type { Queryable } from '../store/db';

/** A workspace row as the rest of the code sees it. */
export interface WorkspaceRecord {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  description: string | null;
  isDefault: boolean;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

interface Row {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string | null;
  is_default: boolean;
  created_by: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const COLUMNS = 'id, org_id, name, slug, description, is_default, created_by, created_at, updated_at';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function toRecord(r: Row): WorkspaceRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    isDefault: r.is_default,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Is `ref` shaped like a UUID (and so never a slug, whose pattern forbids that shape's length)? */
export function isUuid(ref: string): boolean {
  return UUID.test(ref);
}

/** A workspace of `orgId` by UUID or slug, or null (also for another organization's workspace). */
export async function findWorkspace(q: Queryable, orgId: string, ref: string): Promise<WorkspaceRecord | null> {
  const rows = isUuid(ref)
    ? await q.query<Row>(`SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND id = $2`, [orgId, ref.toLowerCase()])
    : await q.query<Row>(`SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND slug = $2`, [orgId, ref]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The organization's default workspace (every organization has exactly one). */
export async function findDefaultWorkspace(q: Queryable, orgId: string): Promise<WorkspaceRecord | null> {
  const rows = await q.query<Row>(`SELECT ${COLUMNS} FROM workspaces WHERE org_id = $1 AND is_default`, [orgId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Fields for a new workspace. */
export interface NewWorkspace {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  description?: string | null;
  isDefault?: boolean;
  createdBy?: string | null;
}

/** Insert a workspace; the caller handles the unique-slug violation. */
export async function insertWorkspace(q: Queryable, w: NewWorkspace): Promise<WorkspaceRecord> {
  const rows = await q.query<Row>(
    `INSERT INTO workspaces (id, org_id, name, slug, description, is_default, created_by)
     VALUES ($1,$2,$3,$4,$5,$6,$7) RETURNING ${COLUMNS}`,
    [w.id, w.orgId, w.name, w.slug, w.description ?? null, w.isDefault ?? false, w.createdBy ?? null],
  );
  return toRecord(rows[0] as Row);
}
