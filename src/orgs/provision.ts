/**
 * Creating an organization is one transaction: the organization, its default workspace and its
 * first management key. Used by first-start bootstrap and by `switchyard orgs create`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../store/db';
import { insertOrg, listOrgs, type OrgRecord } from './repository';
import { insertWorkspace, type WorkspaceRecord } from '../workspaces/repository';
import { insertKey } from '../keys/repository';
import { generateSecret } from '../keys/secrets';
import { mintKey } from '../keys/mint';

/** What provisioning returns; `secret` is shown once and never stored. */
export interface ProvisionedOrg {
  org: OrgRecord;
  workspace: WorkspaceRecord;
  secret: string;
  keyHash: string;
}

/** Create an organization with its default workspace and a management key. */
export async function provisionOrg(
  q: Queryable,
  name: string,
  secret: string = generateSecret(),
): Promise<ProvisionedOrg> {
  const org = await insertOrg(q, randomUUID(), name);
  const workspace = await insertWorkspace(q, {
    id: randomUUID(),
    orgId: org.id,
    name: 'Default Workspace',
    slug: 'default',
    isDefault: true,
  });
  const { row } = mintKey(
    { orgId: org.id, workspaceId: workspace.id, name: 'Management key', isManagement: true },
    secret,
  );
  await insertKey(q, row);
  return { org, workspace, secret, keyHash: row.hash };
}

/**
 * On an empty database create the default organization and return it (with its secret, to be
 * printed once); otherwise return null. Runs under the cluster lock so concurrent replicas
 * bootstrap exactly once.
 * @param bootstrapKey - use this exact secret for the management key (automation)
 */
export async function bootstrapIfEmpty(db: Database, bootstrapKey: string | null): Promise<ProvisionedOrg | null> {
  return db.withLock('bootstrap', async () => {
    if ((await listOrgs(db)).length > 0) return null;
    return db.transaction((tx) => provisionOrg(tx, 'Default Organization', bootstrapKey ?? undefined));
  });
}
