/**
 * SQL for workspace memberships. A member's role is always the one they hold in the
 * organization: every read takes it from `organization_members` (a JOIN), so a role changed in
 * the organization (CLI `users add … --role`) shows at once in every workspace, with no copy to
 * go stale. The role stored on the membership is only the one last synced by `members/add`,
 * which counts a resync as a change. The default workspace has no membership list of its own: it
 * lists every member of the organization (with a stable RFC 9562 membership id derived from
 * workspace and user, see ids.ts).
 * @module
 */
import type { Queryable } from '../store/db';
import { defaultMemberId } from './ids';

/** A workspace membership. */
export interface MemberRecord {
  id: string;
  workspaceId: string;
  userId: string;
  role: 'admin' | 'member';
  createdAt: Date;
}

interface Row {
  id: string;
  workspace_id: string;
  user_id: string;
  role: 'admin' | 'member';
  created_at: Date;
}

const toRecord = (r: Row): MemberRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  userId: r.user_id,
  role: r.role,
  createdAt: r.created_at,
});

/** Organization roles of those of `userIds` that are members of the organization. */
export async function orgRoles(
  q: Queryable,
  orgId: string,
  userIds: string[],
): Promise<Map<string, 'admin' | 'member'>> {
  const rows = await q.query<{ user_id: string; role: 'admin' | 'member' }>(
    `SELECT user_id, role FROM organization_members
      WHERE org_id = $1 AND user_id IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [orgId, JSON.stringify(userIds)],
  );
  return new Map(rows.map((r) => [r.user_id, r.role]));
}

/**
 * Create each membership or bring its role in line with the organization role.
 * @returns how many memberships were created or changed (unchanged ones are not counted)
 */
export async function upsertMembers(
  q: Queryable,
  workspaceId: string,
  members: Array<{ id: string; userId: string; role: 'admin' | 'member' }>,
): Promise<number> {
  let changed = 0;
  for (const m of members) {
    const rows = await q.query(
      `INSERT INTO workspace_members (id, workspace_id, user_id, role) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role
         WHERE workspace_members.role <> EXCLUDED.role
       RETURNING id`,
      [m.id, workspaceId, m.userId, m.role],
    );
    changed += rows.length;
  }
  return changed;
}

/**
 * Memberships of a (non-default) workspace with the role each user holds in the organization
 * now. Users no longer in the organization are not members of its workspaces either.
 */
const MEMBERS = `SELECT wm.id, wm.workspace_id, wm.user_id, om.role, wm.created_at
   FROM workspace_members wm
   JOIN workspaces w ON w.id = wm.workspace_id
   JOIN organization_members om ON om.org_id = w.org_id AND om.user_id = wm.user_id`;

/** The memberships of `userIds` in a workspace. */
export async function findMembers(q: Queryable, workspaceId: string, userIds: string[]): Promise<MemberRecord[]> {
  const rows = await q.query<Row>(
    `${MEMBERS}
      WHERE wm.workspace_id = $1 AND wm.user_id IN (SELECT jsonb_array_elements_text($2::jsonb))
      ORDER BY wm.created_at, wm.user_id`,
    [workspaceId, JSON.stringify(userIds)],
  );
  return rows.map(toRecord);
}

/**
 * Members of the default workspace (every member of the organization), with their membership
 * row's id where one exists (rows added before the default workspace stopped storing them) or
 * the stable derived id ({@link defaultMemberId}); `userIds` restricts them, null lists all.
 */
async function defaultMembers(
  q: Queryable,
  ws: { id: string; orgId: string },
  userIds: string[] | null,
  offset: number,
  limit: number | null,
) {
  const rows = await q.query<Omit<Row, 'id'> & { id: string | null }>(
    `SELECT wm.id, $1::uuid AS workspace_id, om.user_id, om.role, COALESCE(wm.created_at, om.created_at) AS created_at
       FROM organization_members om
       LEFT JOIN workspace_members wm ON wm.workspace_id = $1 AND wm.user_id = om.user_id
      WHERE om.org_id = $2 AND ($3::jsonb IS NULL OR om.user_id IN (SELECT jsonb_array_elements_text($3::jsonb)))
      ORDER BY om.created_at, om.user_id OFFSET $4 LIMIT $5`,
    [ws.id, ws.orgId, userIds === null ? null : JSON.stringify(userIds), offset, limit],
  );
  return rows.map((r) => toRecord({ ...r, id: r.id ?? defaultMemberId(ws.id, r.user_id) }));
}

/** The default workspace's memberships of `userIds` (those who are members of the organization). */
export function findDefaultMembers(
  q: Queryable,
  ws: { id: string; orgId: string },
  userIds: string[],
): Promise<MemberRecord[]> {
  return defaultMembers(q, ws, userIds, 0, null);
}

/** One page of a workspace's members with the total; `isDefault` lists the whole organization. */
export async function listMembers(
  q: Queryable,
  ws: { id: string; orgId: string; isDefault: boolean },
  offset: number,
  limit: number,
) {
  if (ws.isDefault) {
    const data = await defaultMembers(q, ws, null, offset, limit);
    const count = await q.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM organization_members WHERE org_id = $1',
      [ws.orgId],
    );
    return { data, total: count[0]?.n ?? 0 };
  }
  const rows = await q.query<Row>(
    `${MEMBERS} WHERE wm.workspace_id = $1 ORDER BY wm.created_at, wm.user_id OFFSET $2 LIMIT $3`,
    [ws.id, offset, limit],
  );
  const count = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM workspace_members wm
       JOIN organization_members om ON om.org_id = $2 AND om.user_id = wm.user_id
      WHERE wm.workspace_id = $1`,
    [ws.id, ws.orgId],
  );
  return { data: rows.map(toRecord), total: count[0]?.n ?? 0 };
}

/** Of `userIds`, those who created a live key in the workspace (they cannot be removed). */
export async function usersWithLiveKeys(q: Queryable, workspaceId: string, userIds: string[]): Promise<string[]> {
  const rows = await q.query<{ user_id: string }>(
    `SELECT DISTINCT creator_user_id AS user_id FROM api_keys
      WHERE workspace_id = $1 AND deleted_at IS NULL
        AND creator_user_id IN (SELECT jsonb_array_elements_text($2::jsonb))
      ORDER BY 1`,
    [workspaceId, JSON.stringify(userIds)],
  );
  return rows.map((r) => r.user_id);
}

/** Remove memberships; returns how many existed. */
export async function deleteMembers(q: Queryable, workspaceId: string, userIds: string[]): Promise<number> {
  const rows = await q.query(
    `DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id IN (SELECT jsonb_array_elements_text($2::jsonb))
     RETURNING id`,
    [workspaceId, JSON.stringify(userIds)],
  );
  return rows.length;
}
