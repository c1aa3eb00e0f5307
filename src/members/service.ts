/**
 * Workspace membership operations. Adding is all-or-nothing: every user must already be a
 * member of the organization (otherwise 400 naming them, and nothing is added); each gets
 * the role they hold in the organization, and adding an existing member is idempotent.
 * Removing refuses (400, naming them) users who created a live key in the workspace, and
 * refuses the default workspace, whose members are the organization's members.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '../store/db';
import { ValidationError } from '../errors';
import { requireWorkspace } from '../workspaces/service';
import * as repo from './repository';
import type { MemberRecord } from './repository';
import type { Member } from '../wire/types';

/** `WorkspaceMember` on the wire. */
export function toWireMember(m: MemberRecord): Member {
  return {
    id: m.id,
    workspace_id: m.workspaceId,
    user_id: m.userId,
    role: m.role,
    created_at: m.createdAt.toISOString(),
  };
}

const unique = (ids: string[]) => [...new Set(ids)];

/** Membership operations bound to one database. */
export class MemberService {
  constructor(private readonly db: Database) {}

  /** Add (or re-sync the role of) organization members; returns the changed count and the memberships. */
  async add(orgId: string, ref: string, userIds: string[]): Promise<{ added: number; members: MemberRecord[] }> {
    const ids = unique(userIds);
    return this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, ref, 'update');
      const roles = await repo.orgRoles(tx, orgId, ids);
      const strangers = ids.filter((id) => !roles.has(id));
      if (strangers.length > 0) {
        throw new ValidationError(
          strangers.map((id) => ({ path: 'body.user_ids', message: `${id} is not a member of the organization` })),
          `Users are not members of the organization: ${strangers.join(', ')}`,
        );
      }
      // Every organization member is already a member of the default workspace: nothing to add.
      if (ws.isDefault) return { added: 0, members: await repo.findDefaultMembers(tx, ws, ids) };
      const added = await repo.upsertMembers(
        tx,
        ws.id,
        ids.map((userId) => ({ id: randomUUID(), userId, role: roles.get(userId) ?? 'member' })),
      );
      return { added, members: await repo.findMembers(tx, ws.id, ids) };
    });
  }

  /** Remove memberships; users who are not members count as nothing removed. */
  async remove(orgId: string, ref: string, userIds: string[]): Promise<number> {
    const ids = unique(userIds);
    return this.db.transaction(async (tx) => {
      const ws = await requireWorkspace(tx, orgId, ref, 'update');
      if (ws.isDefault) {
        throw new ValidationError(
          [{ path: 'params.id', message: 'the default workspace lists every organization member' }],
          'Members cannot be removed from the default workspace; remove them from the organization instead',
        );
      }
      const holders = await repo.usersWithLiveKeys(tx, ws.id, ids);
      if (holders.length > 0) {
        throw new ValidationError(
          holders.map((id) => ({ path: 'body.user_ids', message: `${id} has active API keys in this workspace` })),
          `Users with active API keys in this workspace cannot be removed: ${holders.join(', ')}`,
        );
      }
      return repo.deleteMembers(tx, ws.id, ids);
    });
  }

  /** One page of members with the total count. */
  async list(orgId: string, ref: string, offset: number, limit: number) {
    const ws = await requireWorkspace(this.db, orgId, ref);
    return repo.listMembers(this.db, ws, offset, limit);
  }
}
