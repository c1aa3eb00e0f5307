/**
 * Classifier rows and generation tags. Every lookup is scoped to an organization (and a
 * workspace where the route names one), so a foreign id reads as absent.
 * @module
 */
import type { Queryable } from '../store/db';
import { isUuid } from '../validation/formats';
import type { ClassifierDimension, ClassifierRecord } from './types';

interface Row {
  id: string;
  org_id: string;
  workspace_id: string;
  name: string;
  active: boolean;
  sample_rate: number;
  dimensions: ClassifierDimension[] | string;
  created_at: Date;
  updated_at: Date | null;
}

const COLUMNS = 'id, org_id, workspace_id, name, active, sample_rate, dimensions, created_at, updated_at';

function toRecord(r: Row): ClassifierRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    workspaceId: r.workspace_id,
    name: r.name,
    active: r.active,
    sampleRate: Number(r.sample_rate),
    dimensions: typeof r.dimensions === 'string' ? (JSON.parse(r.dimensions) as ClassifierDimension[]) : r.dimensions,
    createdAt: new Date(r.created_at),
    updatedAt: r.updated_at ? new Date(r.updated_at) : null,
  };
}

/** A classifier of the organization by id, or null (unknown, foreign, or not a UUID). */
export async function findClassifier(
  q: Queryable,
  orgId: string,
  id: string,
  workspaceId?: string,
): Promise<ClassifierRecord | null> {
  if (!isUuid(id)) return null;
  const rows = workspaceId
    ? await q.query<Row>(`SELECT ${COLUMNS} FROM classifiers WHERE org_id = $1 AND id = $2 AND workspace_id = $3`, [
        orgId,
        id.toLowerCase(),
        workspaceId,
      ])
    : await q.query<Row>(`SELECT ${COLUMNS} FROM classifiers WHERE org_id = $1 AND id = $2`, [orgId, id.toLowerCase()]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** A workspace's classifiers, oldest first. */
export async function listClassifiers(
  q: Queryable,
  workspaceId: string,
  activeOnly = false,
): Promise<ClassifierRecord[]> {
  const rows = await q.query<Row>(
    `SELECT ${COLUMNS} FROM classifiers WHERE workspace_id = $1${activeOnly ? ' AND active' : ''} ORDER BY created_at, id`,
    [workspaceId],
  );
  return rows.map(toRecord);
}

/** How many classifiers a workspace has. */
export async function countClassifiers(q: Queryable, workspaceId: string): Promise<number> {
  const rows = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM classifiers WHERE workspace_id = $1`, [
    workspaceId,
  ]);
  return rows[0]?.n ?? 0;
}

/** Insert a classifier. */
export async function insertClassifier(
  q: Queryable,
  c: Omit<ClassifierRecord, 'createdAt' | 'updatedAt'>,
): Promise<ClassifierRecord> {
  const rows = await q.query<Row>(
    `INSERT INTO classifiers (id, org_id, workspace_id, name, active, sample_rate, dimensions) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb) RETURNING ${COLUMNS}`,
    [c.id, c.orgId, c.workspaceId, c.name, c.active, c.sampleRate, JSON.stringify(c.dimensions)],
  );
  return toRecord(rows[0]!);
}

/** Replace a classifier's settings; null when it is not in that workspace of the organization. */
export async function updateClassifier(q: Queryable, c: ClassifierRecord): Promise<ClassifierRecord | null> {
  const rows = await q.query<Row>(
    `UPDATE classifiers SET name = $4, active = $5, sample_rate = $6, dimensions = $7::jsonb, updated_at = clock_timestamp()
      WHERE org_id = $1 AND workspace_id = $2 AND id = $3 RETURNING ${COLUMNS}`,
    [c.orgId, c.workspaceId, c.id, c.name, c.active, c.sampleRate, JSON.stringify(c.dimensions)],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Delete a classifier (its tags go with it); false when it is not there. */
export async function deleteClassifier(q: Queryable, orgId: string, workspaceId: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const rows = await q.query(
    `DELETE FROM classifiers WHERE org_id = $1 AND workspace_id = $2 AND id = $3 RETURNING id`,
    [orgId, workspaceId, id.toLowerCase()],
  );
  return rows.length > 0;
}

/** Delete every classifier of a workspace (and, by cascade, their tags): part of deleting the workspace. */
export async function deleteWorkspaceClassifiers(q: Queryable, workspaceId: string): Promise<void> {
  await q.query('DELETE FROM classifiers WHERE workspace_id = $1', [workspaceId]);
}

/** One stored tag (value null = no rule matched). */
export interface TagRow {
  generationId: string;
  classifierId: string;
  dimension: string;
  orgId: string;
  value: string | null;
  createdAt: Date;
}

/** Store tags; idempotent on (generation, classifier, dimension). */
export async function insertTags(q: Queryable, tags: TagRow[]): Promise<void> {
  if (tags.length === 0) return;
  await q.query(
    `INSERT INTO generation_tags (generation_id, classifier_id, dimension, org_id, value, created_at)
     SELECT u.* FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[], $5::text[], $6::timestamptz[]) AS u(g, c, d, o, v, t)
      WHERE EXISTS (SELECT 1 FROM classifiers k WHERE k.id = u.c)
     ON CONFLICT (generation_id, classifier_id, dimension) DO NOTHING`,
    [
      tags.map((t) => t.generationId),
      tags.map((t) => t.classifierId),
      tags.map((t) => t.dimension),
      tags.map((t) => t.orgId),
      tags.map((t) => t.value),
      tags.map((t) => t.createdAt.toISOString()),
    ],
  );
}
