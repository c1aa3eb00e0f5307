/**
 * Argument parsing and dispatch for the admin CLI (`switchyard …`, `npm run cli -- …`).
 * Returns an exit code instead of exiting so tests can run it in-process.
 * @module
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../config';
import { DataDirLockedError } from '../store/pglite';
import type { Database } from '../store/db';
import { CliError, UsageError, openCliDatabase, type Out } from './context';
import * as cmd from './commands';
import * as keyCmd from './key-commands';

/** Usage text printed on `--help` and after a usage error. */
export const USAGE = `usage: switchyard <command> [options]

  users add <user_id> --role admin|member [--email <email>] [--org <org_id>]
  users list [--org <org_id>]
  keys create --name <name> [--management] [--workspace <id-or-slug>] [--org <org_id>]
  keys list [--org <org_id>]
  keys revoke <hash> [--org <org_id>]      delete a key; the last enabled management key is rotated instead
  keys rotate <hash> [--org <org_id>]      replace a management key by a new secret (the old one stops working)
  workspaces cache on|off|default [--workspace <id-or-slug>] [--org <org_id>]
  orgs create <name>
  orgs list
  classifiers create --name <name> --file <rules.json> [--workspace <id-or-slug>] [--org <org_id>]
  classifiers list [--workspace <id-or-slug>] [--org <org_id>]
  classifiers delete <classifier_id> [--workspace <id-or-slug>] [--org <org_id>]
  analytics maintain [--retention-days <N>]
  migrate
  rollup [--from <YYYY-MM-DD> --to <YYYY-MM-DD>]   rankings dataset rollup (default: what is due)

The database is the gateway's: DATABASE_URL, else the embedded one in SWITCHYARD_DATA_DIR (default ./data).
--org defaults to the first organization. Secrets are printed once.`;

const COMMANDS: Record<string, cmd.CliCommand> = {
  'users add': cmd.usersAdd,
  'users list': cmd.usersList,
  'keys create': cmd.keysCreate,
  'keys list': cmd.keysList,
  'keys revoke': keyCmd.keysRevoke,
  'keys rotate': keyCmd.keysRotate,
  'workspaces cache': cmd.workspacesCache,
  'orgs create': cmd.orgsCreate,
  'orgs list': cmd.orgsList,
  'classifiers create': cmd.classifiersCreate,
  'classifiers list': cmd.classifiersList,
  'classifiers delete': cmd.classifiersDelete,
  'analytics maintain': cmd.analyticsMaintain,
  migrate: cmd.migrateCommand,
  rollup: cmd.rollupCommand,
};

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        org: { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
        workspace: { type: 'string' },
        email: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        management: { type: 'boolean' },
        file: { type: 'string' },
        'retention-days': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The command's options, refusing ones it does not take and values no database can store. */
function checkOptions(
  name: string,
  command: cmd.CliCommand,
  values: ReturnType<typeof parse>['values'],
): cmd.CommandOptions {
  const { help: _help, ...options } = values;
  for (const [flag, value] of Object.entries(options)) {
    if (!command.options.includes(flag as keyof cmd.CommandOptions))
      throw new UsageError(`${name} does not take --${flag}`);
    if (typeof value === 'string' && value.includes('\u0000'))
      throw new UsageError(`--${flag} must not contain NUL characters`);
  }
  return options;
}

/**
 * Run one CLI invocation.
 * @returns the process exit code: 0 ok, 1 operational failure, 2 usage error
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  let db: Database | undefined;
  try {
    const { values, positionals } = parse(argv);
    if (values.help || positionals.length === 0) {
      out.line(USAGE);
      return values.help ? 0 : 2;
    }
    const twoWords = `${positionals[0]} ${positionals[1] ?? ''}`;
    const name = COMMANDS[twoWords] ? twoWords : (positionals[0] ?? '');
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`unknown command "${positionals.slice(0, 2).join(' ')}"`);
    const rest = positionals.slice(name.split(' ').length);
    const options = checkOptions(name, command, values);
    // Arguments first: a usage error must not wait for, or be hidden by, the database.
    command.check(rest, options);
    db = await openCliDatabase(env, name !== 'migrate');
    await command.run(db, out, rest, options, env);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err.line(`error: ${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof CliError || e instanceof DataDirLockedError || e instanceof ConfigError) {
      err.line(`error: ${e.message}`);
      return 1;
    }
    err.line(`error: ${(e as Error).message}`);
    return 1;
  } finally {
    await db?.close();
  }
}
