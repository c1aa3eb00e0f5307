/**
 * Organizations and their users. Users are not created through the HTTP API (the hosted
 * service gets them from its identity provider); the admin CLI adds them.
 * @module
 */
import type { Queryable } from '../store/db';

/** An organization. */
export interface OrgRecord {
  id: string;
  name: string;
  createdAt: Date;
}

/** A user's membership of an organization. */
export interface OrgMember {
  userId: string;
  role: 'admin' | 'member';
  email: string | null;
  createdAt: Date;
}

/** Insert an organization. */
export async function insertOrg(q: Queryable, id: string, name: string): Promise<OrgRecord> {
  const rows = await q.query<{ id: string; name: string; created_at: Date }>(
    'INSERT INTO organizations (id, name) VALUES ($1, $2) RETURNING id, name, created_at',
    [id, name],
  );
  const r = rows[0] as { id: string; name: string; created_at: Date };
  return { id: r.id, name: r.name, createdAt: r.created_at };
}

/** All organizations, oldest first (the first is the CLI's default). */
export async function listOrgs(q: Queryable): Promise<OrgRecord[]> {
  const rows = await q.query<{ id: string; name: string; created_at: Date }>(
    'SELECT id, name, created_at FROM organizations ORDER BY created_at, id',
  );
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
}

/** Add a user to an organization (creating the user), or change their role there. */
export async function upsertOrgMember(
  q: Queryable,
  orgId: string,
  userId: string,
  role: 'admin' | 'member',
  email: string | null = null,
): Promise<void> {
  await q.query(
    'INSERT INTO users (id, email) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET email = COALESCE(EXCLUDED.email, users.email)',
    [userId, email],
  );
  await q.query(
    `INSERT INTO organization_members (org_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (org_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
    [orgId, userId, role],
  );
}

/** Members of an organization, in the order they joined. */
export async function listOrgMembers(q: Queryable, orgId: string): Promise<OrgMember[]> {
  const rows = await q.query<{ user_id: string; role: 'admin' | 'member'; email: string | null; created_at: Date }>(
    `SELECT m.user_id, m.role, u.email, m.created_at FROM organization_members m JOIN users u ON u.id = m.user_id
      WHERE m.org_id = $1 ORDER BY m.created_at, m.user_id`,
    [orgId],
  );
  return rows.map((r) => ({ userId: r.user_id, role: r.role, email: r.email, createdAt: r.created_at }));
}
