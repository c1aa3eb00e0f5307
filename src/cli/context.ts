/**
 * Shared plumbing of the admin CLI: usage errors (exit 2), opening the configured database
 * (exit 1 with a plain sentence when the gateway holds the PGlite data dir), and picking the
 * organization a command acts on.
 * @module
 */
import { loadConfig } from '../config';
import { openDatabase } from '../deps';
import type { Database } from '../store/db';
import { listOrgs, type OrgRecord } from '../orgs/repository';

/** A mistake in the command line: printed with the usage text, exit code 2. */
export class UsageError extends Error {}

/** A failure the operator must act on: printed plainly, exit code 1. */
export class CliError extends Error {}

/** Open the database named by DATABASE_URL / SWITCHYARD_DATA_DIR (migrated unless told not to). */
export async function openCliDatabase(env: NodeJS.ProcessEnv, runMigrations = true): Promise<Database> {
  return openDatabase(loadConfig(env), runMigrations);
}

/** The organization named by `--org`, or the first one. */
export async function pickOrg(db: Database, orgId: string | undefined): Promise<OrgRecord> {
  const orgs = await listOrgs(db);
  if (orgs.length === 0)
    throw new CliError('no organization exists yet: start the gateway once, or run `switchyard orgs create <name>`');
  if (orgId === undefined) return orgs[0] as OrgRecord;
  const org = orgs.find((o) => o.id === orgId);
  if (!org) throw new CliError(`no organization with id ${orgId} (see \`switchyard orgs list\`)`);
  return org;
}

/** Output sink; tests capture it. */
export interface Out {
  line(text: string): void;
}
