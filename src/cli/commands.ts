/**
 * The admin CLI's commands. Users and organizations are not created through the HTTP API, so
 * these are how an operator adds them; keys can be created here too (management keys only here;
 * revoking and rotating are in key-commands.ts).
 * Secrets are printed exactly once and stored only as hashes.
 *
 * Each command has a `check` that validates its arguments without touching the database: the
 * runner calls it before opening (and migrating) the database, so a usage error exits 2 at once,
 * even while the gateway holds the embedded data dir.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Database } from '../store/db';
import { migrate } from '../store/migrate';
import { listOrgMembers, listOrgs, upsertOrgMember } from '../orgs/repository';
import { provisionOrg } from '../orgs/provision';
import { findDefaultWorkspace, findWorkspace, updateWorkspace } from '../workspaces/repository';
import { insertKey, listKeys } from '../keys/repository';
import { mintKey } from '../keys/mint';
import { CliError, UsageError, pickOrg, type Out } from './context';
import { loadConfig } from '../config';
import { RankingsRollup } from '../datasets/rollup';
import { publishOptions } from '../datasets/publish';
import { DATASET_START, dayOf, parseDay } from '../datasets/dates';
import { ClassifierService } from '../classifiers/service';
import { toWireClassifier } from '../classifiers/types';
import { getValidator } from '../validation/schemas';
import { toIssues } from '../validation/ajv';
import type { Wire } from '../wire';
import keysCreateBody from '../wire/requests/keys.create.body';
import wireDefs from '../wire/defs';
import { isUuid } from '../validation/formats';
import { createLogger } from '../observability/logger';
import { GatewayError, ValidationError } from '../errors';
import { runMaintenance } from '../analytics/maintenance';

/** Parsed options common to the commands. */
export interface CommandOptions {
  org?: string;
  role?: string;
  name?: string;
  workspace?: string;
  management?: boolean;
  email?: string;
  from?: string;
  to?: string;
  /** A JSON file (classifiers create). */
  file?: string;
  'retention-days'?: string;
}

/** A CLI command: argument checks (no I/O) and the action. */
export interface CliCommand {
  /** Options the command accepts besides `--help`; any other is a usage error. */
  options: ReadonlyArray<keyof CommandOptions>;
  /** Throws {@link UsageError} for bad arguments; runs before the database is opened. */
  check(args: string[], o: CommandOptions): void;
  run(db: Database, out: Out, args: string[], o: CommandOptions, env: NodeJS.ProcessEnv): Promise<void>;
}

const USER_ID = /^[A-Za-z0-9_.@:-]{1,200}$/;
/** The API's limit on key names, read from its schema so CLI-made keys are always API-valid. */
export const KEY_NAME_MAX = keysCreateBody.properties.name.maxLength;
/** Workspace UUID or slug, as long as the API's `workspaceRef` allows. */
const WORKSPACE_REF_MAX = wireDefs.$defs.workspaceRef.maxLength;
const ORG_NAME_MAX = 200;
const EMAIL_MAX = 320;

function noArgs(command: string) {
  return (args: string[]): void => {
    if (args.length > 0) throw new UsageError(`${command} takes no arguments (got "${args[0]}")`);
  };
}

/** `--org`, when given, must be an organization id. */
export function checkOrg(o: CommandOptions): void {
  if (o.org !== undefined && !isUuid(o.org))
    throw new UsageError(`--org must be an organization id (a UUID, see \`switchyard orgs list\`)`);
}

function checkLength(flag: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) throw new UsageError(`${flag} is longer than ${max} characters`);
}

/** `users add <user_id> --role admin|member [--email e] [--org id]` */
export const usersAdd: CliCommand = {
  options: ['role', 'email', 'org'],
  check(args, o) {
    const userId = args[0];
    if (!userId || args.length > 1) throw new UsageError('users add takes exactly one <user_id>');
    if (!USER_ID.test(userId)) throw new UsageError(`invalid user id "${userId}": letters, digits and _ . @ : - only`);
    if (o.role !== 'admin' && o.role !== 'member') throw new UsageError('--role must be admin or member');
    checkLength('--email', o.email, EMAIL_MAX);
    checkOrg(o);
  },
  async run(db, out, args, o) {
    const userId = args[0] as string;
    const org = await pickOrg(db, o.org);
    await db.transaction((tx) => upsertOrgMember(tx, org.id, userId, o.role as 'admin' | 'member', o.email ?? null));
    out.line(`user ${userId} is ${o.role} of organization ${org.name} (${org.id})`);
  },
};

/** `users list [--org id]` */
export const usersList: CliCommand = {
  options: ['org'],
  check(args, o) {
    noArgs('users list')(args);
    checkOrg(o);
  },
  async run(db, out, _args, o) {
    const org = await pickOrg(db, o.org);
    const members = await listOrgMembers(db, org.id);
    if (members.length === 0) out.line(`organization ${org.name} has no users yet`);
    for (const m of members) out.line(`${m.userId}\t${m.role}\t${m.email ?? ''}\t${m.createdAt.toISOString()}`);
  },
};

/** `keys create --name n [--management] [--workspace id-or-slug] [--org id]` */
export const keysCreate: CliCommand = {
  options: ['name', 'management', 'workspace', 'org'],
  check(args, o) {
    noArgs('keys create')(args);
    if (!o.name || o.name.trim() === '') throw new UsageError('keys create needs --name <name>');
    checkLength('--name', o.name, KEY_NAME_MAX);
    if (o.workspace !== undefined && o.workspace === '')
      throw new UsageError('--workspace needs a workspace id or slug');
    checkLength('--workspace', o.workspace, WORKSPACE_REF_MAX);
    checkOrg(o);
  },
  async run(db, out, _args, o) {
    const name = o.name as string;
    const org = await pickOrg(db, o.org);
    const ws = o.workspace ? await findWorkspace(db, org.id, o.workspace) : await findDefaultWorkspace(db, org.id);
    if (!ws) throw new CliError(`no workspace "${o.workspace}" in organization ${org.name}`);
    const { secret, row } = mintKey({ orgId: org.id, workspaceId: ws.id, name, isManagement: o.management === true });
    await insertKey(db, row);
    out.line(`created ${o.management ? 'management' : 'API'} key "${name}" in workspace ${ws.slug} (hash ${row.hash})`);
    out.line(`secret (shown once, store it now): ${secret}`);
  },
};

/** `keys list [--org id]`: every live key, management keys included. */
export const keysList: CliCommand = {
  options: ['org'],
  check(args, o) {
    noArgs('keys list')(args);
    checkOrg(o);
  },
  async run(db, out, _args, o) {
    const org = await pickOrg(db, o.org);
    const keys = await listKeys(db, {
      orgId: org.id,
      includeDisabled: true,
      includeManagement: true,
      offset: 0,
      limit: 100000,
    });
    if (keys.length === 0) out.line('no keys');
    for (const k of keys) {
      const kind = k.isManagement ? 'management' : 'api';
      out.line(`${k.hash}\t${kind}\t${k.disabled ? 'disabled' : 'active'}\t${k.label}\t${k.name}`);
    }
  },
};

const CACHE_SWITCH: Record<string, boolean | null> = { on: true, off: false, default: null };

/**
 * `workspaces cache on|off|default [--workspace id-or-slug] [--org id]`: the workspace's embeddings
 * cache switch (`default` follows `embeddingsCache.enabled`). Running gateways see it within their
 * settings cache's TTL (`auth.keyCacheTtlMs`); the management API's PATCH takes effect at once.
 */
export const workspacesCache: CliCommand = {
  options: ['workspace', 'org'],
  check(args, o) {
    if (args.length !== 1 || !((args[0] as string) in CACHE_SWITCH))
      throw new UsageError('workspaces cache takes one of on, off, default');
    if (o.workspace !== undefined && o.workspace === '')
      throw new UsageError('--workspace needs a workspace id or slug');
    checkLength('--workspace', o.workspace, WORKSPACE_REF_MAX);
    checkOrg(o);
  },
  async run(db, out, args, o) {
    const org = await pickOrg(db, o.org);
    const ws = o.workspace ? await findWorkspace(db, org.id, o.workspace) : await findDefaultWorkspace(db, org.id);
    if (!ws) throw new CliError(`no workspace "${o.workspace}" in organization ${org.name}`);
    const value = CACHE_SWITCH[args[0] as string] as boolean | null;
    await updateWorkspace(db, org.id, ws.id, { embeddingsCacheEnabled: value });
    out.line(`embeddings cache of workspace ${ws.slug}: ${value === null ? 'gateway default' : value ? 'on' : 'off'}`);
  },
};

/** `orgs create <name>`: organization + default workspace + management key (printed once). */
export const orgsCreate: CliCommand = {
  options: [],
  check(args) {
    const name = args.join(' ').trim();
    if (!name) throw new UsageError('orgs create needs a <name>');
    if (name.includes('\u0000')) throw new UsageError('<name> must not contain NUL characters');
    checkLength('<name>', name, ORG_NAME_MAX);
  },
  async run(db, out, args) {
    const name = args.join(' ').trim();
    const created = await db.transaction((tx) => provisionOrg(tx, name));
    out.line(`created organization "${name}" (${created.org.id}) with workspace "default" (${created.workspace.id})`);
    out.line(`management key (shown once, store it now): ${created.secret}`);
  },
};

/** `orgs list` */
export const orgsList: CliCommand = {
  options: [],
  check: noArgs('orgs list'),
  async run(db, out) {
    for (const org of await listOrgs(db)) out.line(`${org.id}\t${org.name}\t${org.createdAt.toISOString()}`);
  },
};

/** `migrate`: apply pending migrations (also done at every gateway start). */
export const migrateCommand: CliCommand = {
  options: [],
  check: noArgs('migrate'),
  async run(db, out) {
    const applied = await migrate(db);
    out.line(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
  },
};

function checkDay(flag: string, value: string | undefined): void {
  if (value === undefined) return;
  const day = parseDay(value);
  if (day === null) throw new UsageError(`${flag} must be a date YYYY-MM-DD`);
  if (day < (parseDay(DATASET_START) as number))
    throw new UsageError(`${flag} must be on or after ${DATASET_START}, where the rankings dataset begins`);
  if (day > dayOf(Date.now())) throw new UsageError(`${flag} must not be after today (UTC)`);
}

/**
 * `rollup [--from YYYY-MM-DD --to YYYY-MM-DD]`: the rankings rollup, as the gateway runs it on
 * its schedule (days since the last run, the lookback, late records), or exactly the given days.
 * Waits for a run in progress elsewhere (advisory lock), so a CronJob and replicas never overlap.
 */
export const rollupCommand: CliCommand = {
  options: ['from', 'to'],
  check(args, o) {
    noArgs('rollup')(args);
    if ((o.from === undefined) !== (o.to === undefined)) throw new UsageError('rollup takes --from and --to together');
    checkDay('--from', o.from);
    checkDay('--to', o.to);
    if (o.from !== undefined && o.to !== undefined && o.from > o.to)
      throw new UsageError('--from must be on or before --to');
  },
  async run(db, out, _args, o, env) {
    const cfg = loadConfig(env).rankings;
    const rollup = new RankingsRollup(db, {
      lookbackDays: cfg.lookbackDays,
      clock: Date.now,
      publish: publishOptions(cfg),
    });
    const result =
      o.from !== undefined && o.to !== undefined
        ? await rollup.rollRange(parseDay(o.from) as number, parseDay(o.to) as number)
        : await rollup.run();
    const days =
      result.days.length === 0
        ? 'no days'
        : `${result.days.length} day(s), ${result.days[0]} to ${result.days[result.days.length - 1]}`;
    const { published } = result;
    const publication =
      cfg.scope === 'installation'
        ? `; published ${published.days.length} day(s) and ${published.weeks.length} week(s)`
        : '';
    out.line(`rankings rolled up: ${days}; as_of ${result.rolledAt.toISOString()}${publication}`);
  },
};

/** Classifier service for CLI use (no tagging runs here). */
function classifierService(db: Database): ClassifierService {
  return new ClassifierService(db, { logger: createLogger('silent') });
}

/** Turn an API error into a CLI error with its details. */
function asCliError(e: unknown): never {
  if (e instanceof ValidationError)
    throw new CliError(`invalid classifier: ${e.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`);
  if (e instanceof GatewayError) throw new CliError(e.message);
  throw e;
}

/** `classifiers create --name n --file rules.json [--workspace id-or-slug] [--org id]`; the file holds `{dimensions, sample_rate?, active?}`. */
export const classifiersCreate: CliCommand = {
  options: ['name', 'file', 'workspace', 'org'],
  check(args, o) {
    noArgs('classifiers create')(args);
    if (!o.name || !o.file) throw new UsageError('classifiers create needs --name <name> and --file <rules.json>');
    checkLength('--workspace', o.workspace, WORKSPACE_REF_MAX);
    checkOrg(o);
  },
  async run(db, out, _args, o) {
    let spec: unknown;
    try {
      spec = JSON.parse(readFileSync(o.file as string, 'utf8'));
    } catch (e) {
      throw new CliError(`cannot read ${o.file}: ${(e as Error).message}`);
    }
    const body = { ...(spec as object), name: o.name };
    const validator = getValidator('classifiers.create.body').all;
    if (!validator(body))
      throw new CliError(
        `invalid classifier: ${toIssues('file', validator.errors)
          .map((i) => `${i.path} ${i.message}`)
          .join('; ')}`,
      );
    const org = await pickOrg(db, o.org);
    const created = await classifierService(db)
      .create(org.id, o.workspace ?? 'default', body as Wire<'classifiers.create.body'>)
      .catch(asCliError);
    out.line(`created classifier "${created.name}" (${created.id}) in workspace ${created.workspaceId}`);
  },
};

/** `classifiers list [--workspace id-or-slug] [--org id]`: one JSON object per line. */
export const classifiersList: CliCommand = {
  options: ['workspace', 'org'],
  check(args, o) {
    noArgs('classifiers list')(args);
    checkLength('--workspace', o.workspace, WORKSPACE_REF_MAX);
    checkOrg(o);
  },
  async run(db, out, _args, o) {
    const org = await pickOrg(db, o.org);
    const list = await classifierService(db)
      .list(org.id, o.workspace ?? 'default')
      .catch(asCliError);
    if (list.length === 0) out.line('no classifiers');
    for (const c of list) out.line(JSON.stringify(toWireClassifier(c)));
  },
};

/** `classifiers delete <classifier_id> [--workspace id-or-slug] [--org id]` */
export const classifiersDelete: CliCommand = {
  options: ['workspace', 'org'],
  check(args, o) {
    if (args.length !== 1 || !isUuid(args[0] as string))
      throw new UsageError('classifiers delete takes exactly one <classifier_id> (a UUID)');
    checkLength('--workspace', o.workspace, WORKSPACE_REF_MAX);
    checkOrg(o);
  },
  async run(db, out, args, o) {
    const org = await pickOrg(db, o.org);
    await classifierService(db)
      .delete(org.id, o.workspace ?? 'default', args[0] as string)
      .catch(asCliError);
    out.line(`deleted classifier ${args[0]}`);
  },
};

/** `analytics maintain [--retention-days N]`: one rollup refresh + retention pass (e.g. from a CronJob). */
export const analyticsMaintain: CliCommand = {
  options: ['retention-days'],
  check(args, o) {
    noArgs('analytics maintain')(args);
    const days = o['retention-days'];
    if (days !== undefined && (!/^\d{1,5}$/.test(days) || (Number(days) > 0 && Number(days) < 32))) {
      throw new UsageError('--retention-days must be 0 (keep everything) or at least 32');
    }
  },
  async run(db, out, _args, o) {
    const r = await runMaintenance(db, Date.now(), Number(o['retention-days'] ?? 0));
    out.line(`rollup: ${r.hours} hours recomputed; retention: ${r.deleted} raw rows deleted`);
  },
};
