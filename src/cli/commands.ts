/**
 * The admin CLI's commands. Users and organizations are not created through the HTTP API, so
 * these are how an operator adds them; keys can be created here too (management keys only here).
 * Secrets are printed exactly once and stored only as hashes.
 * @module
 */
import type { Database } from '../store/db';
import { migrate } from '../store/migrate';
import { listOrgMembers, listOrgs, upsertOrgMember } from '../orgs/repository';
import { provisionOrg } from '../orgs/provision';
import { findDefaultWorkspace, findWorkspace } from '../workspaces/repository';
import { insertKey, listKeys } from '../keys/repository';
import { mintKey } from '../keys/mint';
import { CliError, UsageError, pickOrg, type Out } from './context';

/** Parsed options common to the commands. */
export interface CommandOptions {
  org?: string;
  role?: string;
  name?: string;
  workspace?: string;
  management?: boolean;
  email?: string;
}

const USER_ID = /^[A-Za-z0-9_.@:-]{1,200}$/;

/** `users add <user_id> --role admin|member [--email e] [--org id]` */
export async function usersAdd(db: Database, out: Out, args: string[], o: CommandOptions): Promise<void> {
  const userId = args[0];
  if (!userId || args.length > 1) throw new UsageError('users add takes exactly one <user_id>');
  if (!USER_ID.test(userId)) throw new UsageError(`invalid user id "${userId}": letters, digits and _ . @ : - only`);
  if (o.role !== 'admin' && o.role !== 'member') throw new UsageError('--role must be admin or member');
  const org = await pickOrg(db, o.org);
  await db.transaction((tx) => upsertOrgMember(tx, org.id, userId, o.role as 'admin' | 'member', o.email ?? null));
  out.line(`user ${userId} is ${o.role} of organization ${org.name} (${org.id})`);
}

/** `users list [--org id]` */
export async function usersList(db: Database, out: Out, _args: string[], o: CommandOptions): Promise<void> {
  const org = await pickOrg(db, o.org);
  const members = await listOrgMembers(db, org.id);
  if (members.length === 0) out.line(`organization ${org.name} has no users yet`);
  for (const m of members) out.line(`${m.userId}\t${m.role}\t${m.email ?? ''}\t${m.createdAt.toISOString()}`);
}

/** `keys create --name n [--management] [--workspace id-or-slug] [--org id]` */
export async function keysCreate(db: Database, out: Out, args: string[], o: CommandOptions): Promise<void> {
  if (args.length > 0) throw new UsageError(`unexpected argument "${args[0]}"`);
  if (!o.name || o.name.trim() === '') throw new UsageError('keys create needs --name <name>');
  const org = await pickOrg(db, o.org);
  const ws = o.workspace ? await findWorkspace(db, org.id, o.workspace) : await findDefaultWorkspace(db, org.id);
  if (!ws) throw new CliError(`no workspace "${o.workspace}" in organization ${org.name}`);
  const { secret, row } = mintKey({ orgId: org.id, workspaceId: ws.id, name: o.name, isManagement: o.management === true });
  await insertKey(db, row);
  out.line(`created ${o.management ? 'management' : 'API'} key "${o.name}" in workspace ${ws.slug} (hash ${row.hash})`);
  out.line(`secret (shown once, store it now): ${secret}`);
}

/** `keys list [--org id]`: every live key, management keys included. */
export async function keysList(db: Database, out: Out, _args: string[], o: CommandOptions): Promise<void> {
  const org = await pickOrg(db, o.org);
  const keys = await listKeys(db, { orgId: org.id, includeDisabled: true, includeManagement: true, offset: 0, limit: 100000 });
  if (keys.length === 0) out.line('no keys');
  for (const k of keys) {
    const kind = k.isManagement ? 'management' : 'api';
    out.line(`${k.hash}\t${kind}\t${k.disabled ? 'disabled' : 'active'}\t${k.label}\t${k.name}`);
  }
}

/** `orgs create <name>`: organization + default workspace + management key (printed once). */
export async function orgsCreate(db: Database, out: Out, args: string[]): Promise<void> {
  const name = args.join(' ').trim();
  if (!name) throw new UsageError('orgs create needs a <name>');
  const created = await db.transaction((tx) => provisionOrg(tx, name));
  out.line(`created organization "${name}" (${created.org.id}) with workspace "default" (${created.workspace.id})`);
  out.line(`management key (shown once, store it now): ${created.secret}`);
}

/** `orgs list` */
export async function orgsList(db: Database, out: Out): Promise<void> {
  for (const org of await listOrgs(db)) out.line(`${org.id}\t${org.name}\t${org.createdAt.toISOString()}`);
}

/** `migrate`: apply pending migrations (also done at every gateway start). */
export async function migrateCommand(db: Database, out: Out): Promise<void> {
  const applied = await migrate(db);
  out.line(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
}
