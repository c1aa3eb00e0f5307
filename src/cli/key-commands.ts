/**
 * `keys revoke` and `keys rotate`: the operator's way to revoke or replace a key, management keys
 * included, under the API's rules (src/keys/lifecycle.ts: the last enabled management key of an
 * organization is rotated, never revoked). Running gateways are told at once through Redis when
 * it is configured; otherwise they notice within their key cache's TTL.
 * @module
 */
import type { Database } from '../store/db';
import { loadConfig } from '../config';
import { openKv } from '../deps';
import { topologyFromConfig } from '../kv/redis-topology';
import { KeyCache } from '../auth/key-cache';
import { Metrics } from '../observability/metrics';
import { GatewayError, NotFoundError, ValidationError } from '../errors';
import { revokeKey, rotateManagementKey } from '../keys/lifecycle';
import { CliError, UsageError, pickOrg, type Out } from './context';
import { checkOrg, type CliCommand, type CommandOptions } from './commands';

const HASH = /^[0-9a-f]{64}$/i;

/** Check `<hash>` (the only argument) and `--org`. */
function checkHashArg(command: string) {
  return (args: string[], o: CommandOptions): void => {
    if (args.length !== 1 || !HASH.test(args[0] as string)) {
      throw new UsageError(`${command} takes exactly one <hash> (64 hex digits, see \`switchyard keys list\`)`);
    }
    checkOrg(o);
  };
}

/**
 * Run `op` on the key named by the command's `<hash>` in the `--org` organization, with the API's
 * refusals as plain sentences for the operator.
 */
async function onKey<R>(
  db: Database,
  args: string[],
  o: CommandOptions,
  op: (orgId: string, hash: string) => Promise<R>,
): Promise<R> {
  const hash = (args[0] as string).toLowerCase();
  const org = await pickOrg(db, o.org);
  try {
    return await op(org.id, hash);
  } catch (e) {
    if (e instanceof NotFoundError) throw new CliError(`no key ${hash} in organization ${org.name}`);
    if (e instanceof ValidationError)
      throw new CliError(typeof e.metadata?.detail === 'string' ? e.metadata.detail : e.message);
    if (e instanceof GatewayError) throw new CliError(e.message);
    throw e;
  }
}

/**
 * Drop `hashes` from the key caches of running gateways (Redis pub/sub, as the API does). Without
 * Redis there is no one to tell; with Redis unreachable the change still stands. Either way the
 * line printed says when gateways stop accepting the key.
 */
async function announce(db: Database, env: NodeJS.ProcessEnv, out: Out, hashes: string[]): Promise<void> {
  const config = loadConfig(env);
  const later = `running gateways stop accepting it within ${config.auth.keyCacheTtlMs} ms (their key cache's TTL)`;
  if (!topologyFromConfig(config.redis)) return out.line(later);
  try {
    const kv = await openKv(config);
    try {
      // Publishing never reports a failure (a replica's TTL is the fallback), so ask first.
      await kv.ping();
      const cache = new KeyCache(db, kv, new Metrics(), { ttlMs: config.auth.keyCacheTtlMs, max: 1 });
      for (const hash of hashes) await cache.invalidate(hash);
    } finally {
      await kv.close();
    }
    out.line('running gateways were told through Redis: they stop accepting it now');
  } catch {
    out.line(`Redis did not answer: ${later}`);
  }
}

/** `keys revoke <hash> [--org id]`: delete a key (its dashboard sessions end with it). */
export const keysRevoke: CliCommand = {
  options: ['org'],
  check: checkHashArg('keys revoke'),
  async run(db, out, args, o, env) {
    const key = await onKey(db, args, o, (orgId, hash) => revokeKey(db, orgId, hash));
    out.line(`revoked ${key.isManagement ? 'management' : 'API'} key "${key.name}" (hash ${key.hash})`);
    await announce(db, env, out, [key.hash]);
  },
};

/** `keys rotate <hash> [--org id]`: replace a management key by a new secret, printed once. */
export const keysRotate: CliCommand = {
  options: ['org'],
  check: checkHashArg('keys rotate'),
  async run(db, out, args, o, env) {
    const { record, secret, old } = await onKey(db, args, o, (orgId, hash) => rotateManagementKey(db, orgId, hash));
    out.line(`rotated management key "${record.name}": old hash ${old.hash} revoked, new hash ${record.hash}`);
    out.line(`secret (shown once, store it now): ${secret}`);
    await announce(db, env, out, [old.hash]);
  },
};
