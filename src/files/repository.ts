/**
 * SQL for file metadata. Every statement a tenant can trigger is scoped by organization AND
 * workspace, so a file outside the workspaces a key may reach is indistinguishable from one that
 * does not exist.
 * @module
 */
import type { Queryable } from '../store/db';
import type { FileRecord } from './types';
import { isFileId } from './wire';

// bigint columns come back as strings from pg; cast to types both engines return as JS values.
const COLUMNS = `id, seq::text AS seq, org_id, workspace_id, filename, mime_type,
  size_bytes::double precision AS size_bytes, created_at`;

interface Row {
  id: string;
  seq: string;
  org_id: string;
  workspace_id: string;
  filename: string;
  mime_type: string;
  size_bytes: number;
  created_at: Date;
}

function toRecord(r: Row): FileRecord {
  return {
    id: r.id,
    seq: r.seq,
    orgId: r.org_id,
    workspaceId: r.workspace_id,
    filename: r.filename,
    mimeType: r.mime_type,
    sizeBytes: Number(r.size_bytes),
    createdAt: r.created_at,
  };
}

/** Where a file lives: every lookup needs both parts. */
export interface FileScope {
  orgId: string;
  workspaceId: string;
}

/** Fields of a new file row. */
export interface NewFile extends FileScope {
  id: string;
  filename: string;
  mimeType: string;
  sizeBytes: number;
}

/** Insert the metadata row (inside the upload transaction, after the content). */
export async function insertFile(q: Queryable, f: NewFile): Promise<FileRecord> {
  const rows = await q.query<Row>(
    `INSERT INTO files (id, org_id, workspace_id, filename, mime_type, size_bytes)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [f.id, f.orgId, f.workspaceId, f.filename, f.mimeType, f.sizeBytes],
  );
  return toRecord(rows[0] as Row);
}

/** A file of this workspace, or null (at once for an id not in our format: it names no file). */
export async function findFile(q: Queryable, scope: FileScope, id: string): Promise<FileRecord | null> {
  if (!isFileId(id)) return null;
  const rows = await q.query<Row>(`SELECT ${COLUMNS} FROM files WHERE id = $1 AND org_id = $2 AND workspace_id = $3`, [
    id,
    scope.orgId,
    scope.workspaceId,
  ]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Up to `limit` files of the workspace after position `afterSeq` (exclusive), oldest first.
 * Ordered by the bigint column (`files.seq`), not the text alias of the select list, which would
 * sort `12` before `3` while the cursor filters numerically and so skip files.
 * @param afterSeq - decimal `seq` from a cursor; null for the first page
 */
export async function listFiles(
  q: Queryable,
  scope: FileScope,
  afterSeq: string | null,
  limit: number,
): Promise<FileRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM files
      WHERE org_id = $1 AND workspace_id = $2 AND ($3::bigint IS NULL OR seq > $3::bigint)
      ORDER BY files.seq ASC LIMIT $4`,
    [scope.orgId, scope.workspaceId, afterSeq, limit],
  );
  return rows.map(toRecord);
}

/**
 * Delete the metadata row. Atomic: of concurrent deletes of one file exactly one gets true (the
 * others wait on the row lock, then find nothing to delete). False at once for an id not in our format.
 */
export async function deleteFile(q: Queryable, scope: FileScope, id: string): Promise<boolean> {
  if (!isFileId(id)) return false;
  const rows = await q.query(`DELETE FROM files WHERE id = $1 AND org_id = $2 AND workspace_id = $3 RETURNING id`, [
    id,
    scope.orgId,
    scope.workspaceId,
  ]);
  return rows.length === 1;
}

/**
 * Delete every file row of a workspace (when the workspace itself is deleted).
 * @returns the ids deleted, so their content can be removed in the same transaction
 */
export async function deleteWorkspaceFiles(q: Queryable, scope: FileScope): Promise<string[]> {
  const rows = await q.query<{ id: string }>('DELETE FROM files WHERE org_id = $1 AND workspace_id = $2 RETURNING id', [
    scope.orgId,
    scope.workspaceId,
  ]);
  return rows.map((r) => r.id);
}
