/**
 * The admin CLI, run in-process against a real embedded data dir and (when running) a real
 * Postgres database of its own: organizations, users, keys (whose printed secrets then work
 * through HTTP), migrate, usage errors (exit 2), and the PGlite data-dir lock (exit 1).
 */
import { Client } from 'pg';
import request from 'supertest';
import { DATABASE_URL, REDIS_URL, describeIf, openTestRedisKv, seededDataDir, uniqueId } from '../helpers/services';
import { gatewayApp, bearer } from '../helpers/gateway';
import { runCli } from '../../src/cli/run';
import { openPglite } from '../../src/store/pglite';
import { openPostgres } from '../../src/store/postgres';
import { MemoryKv } from '../../src/kv/memory';
import type { Database } from '../../src/store/db';
import { hashSecret } from '../../src/keys/secrets';

async function cli(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { line: (t) => out.push(t) }, { line: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

interface Target {
  name: string;
  env: () => Promise<NodeJS.ProcessEnv>;
  open: (env: NodeJS.ProcessEnv) => Promise<Database>;
  cleanup: (env: NodeJS.ProcessEnv) => Promise<void>;
}

/**
 * The bound of a test that runs the CLI several times: each run opens (and locks) the embedded
 * data dir or a new Postgres pool, a second or two on an idle machine and several on a busy one.
 */
const SEVERAL_RUNS_MS = 120_000;

const targets: Target[] = [
  {
    name: 'embedded data dir',
    // A new cluster from the suite's archive, not from initdb (seconds, most of a test's timeout on a
    // busy machine); nothing is migrated yet, so the first test still migrates an empty database.
    env: async () => ({ SWITCHYARD_DATA_DIR: await seededDataDir('sy-cli-', 'empty') }),
    open: (env) => openPglite({ dataDir: env.SWITCHYARD_DATA_DIR }),
    cleanup: () => Promise.resolve(),
  },
];
if (DATABASE_URL) {
  const admin = () => new Client({ connectionString: DATABASE_URL });
  targets.push({
    name: 'postgres',
    env: async () => {
      const name = `sy_cli_${uniqueId()}`;
      const c = admin();
      await c.connect();
      await c.query(`CREATE DATABASE ${name}`);
      await c.end();
      const url = new URL(DATABASE_URL as string);
      url.pathname = `/${name}`;
      return { DATABASE_URL: url.toString() };
    },
    open: (env) => openPostgres({ url: env.DATABASE_URL as string }),
    cleanup: async (env) => {
      const c = admin();
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${new URL(env.DATABASE_URL as string).pathname.slice(1)} WITH (FORCE)`);
      await c.end();
    },
  });
}

describe.each(targets)('switchyard CLI on $name', (target) => {
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    env = await target.env();
  }, SEVERAL_RUNS_MS);
  afterAll(() => target.cleanup(env));

  test('migrate on an empty database applies every migration, then reports up to date', async () => {
    const first = await cli(env, 'migrate');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/applied: 001_foundation\.sql/);
    const second = await cli(env, 'migrate');
    expect(second).toMatchObject({ code: 0, out: 'database is up to date' });
  });

  test('commands that need an organization say how to get one', async () => {
    const res = await cli(env, 'users', 'list');
    expect(res.code).toBe(1);
    expect(res.err).toContain('no organization exists yet');
  });

  test(
    'orgs create prints a management key once that then works through HTTP',
    async () => {
      const res = await cli(env, 'orgs', 'create', 'Acme', 'Corp');
      expect(res.code).toBe(0);
      const secret = /management key \(shown once, store it now\): (sk-sy-v1-[0-9a-f]{64})/.exec(res.out)?.[1];
      expect(secret).toBeDefined();
      const db = await target.open(env);
      try {
        const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
        const me = await request(app)
          .get('/api/v1/key')
          .set('Authorization', bearer(secret as string))
          .expect(200);
        expect(me.body.data.is_management_key).toBe(true);
        await request(app)
          .get('/api/v1/keys')
          .set('Authorization', bearer(secret as string))
          .expect(200);
      } finally {
        await db.close();
      }
      expect((await cli(env, 'orgs', 'list')).out).toContain('Acme Corp');
    },
    SEVERAL_RUNS_MS,
  );

  test(
    'users add / list, with roles and --org',
    async () => {
      expect((await cli(env, 'users', 'add', 'user_alice', '--role', 'admin', '--email', 'a@example.com')).code).toBe(
        0,
      );
      expect((await cli(env, 'users', 'add', 'user_bob', '--role', 'member')).code).toBe(0);
      expect((await cli(env, 'users', 'add', 'user_bob', '--role', 'admin')).code).toBe(0); // role change
      const list = await cli(env, 'users', 'list');
      expect(list.out).toMatch(/user_alice\tadmin\ta@example.com/);
      expect(list.out).toMatch(/user_bob\tadmin/);
      const second = await cli(env, 'orgs', 'create', 'Beta');
      const betaId = /\(([0-9a-f-]{36})\) with workspace/.exec(second.out)?.[1] as string;
      expect((await cli(env, 'users', 'list', '--org', betaId)).out).toContain('has no users yet');
      expect((await cli(env, 'users', 'list', '--org', '00000000-0000-0000-0000-000000000000')).code).toBe(1);
    },
    SEVERAL_RUNS_MS,
  );

  test(
    'keys create (API and management) prints working secrets; keys list shows hashes, never secrets',
    async () => {
      const api = await cli(env, 'keys', 'create', '--name', 'batch job');
      const mgmt = await cli(env, 'keys', 'create', '--name', 'automation', '--management', '--workspace', 'default');
      expect(api.code).toBe(0);
      expect(mgmt.code).toBe(0);
      const apiSecret = /secret \(shown once, store it now\): (\S+)/.exec(api.out)?.[1] as string;
      const mgmtSecret = /secret \(shown once, store it now\): (\S+)/.exec(mgmt.out)?.[1] as string;
      const db = await target.open(env);
      try {
        const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
        expect(
          (await request(app).get('/api/v1/key').set('Authorization', bearer(apiSecret))).body.data.is_management_key,
        ).toBe(false);
        await request(app).get('/api/v1/keys').set('Authorization', bearer(apiSecret)).expect(403);
        await request(app).get('/api/v1/keys').set('Authorization', bearer(mgmtSecret)).expect(200);
      } finally {
        await db.close();
      }
      const list = await cli(env, 'keys', 'list');
      expect(list.out).toMatch(/\tapi\tactive\t.*\tbatch job/);
      expect(list.out).toMatch(/\tmanagement\tactive\t.*\tautomation/);
      expect(list.out).not.toContain(apiSecret);
      // The API's name limit (200, src/wire/requests/keys.create.body.ts) is the CLI's: the longest name works.
      const longest = await cli(env, 'keys', 'create', '--name', 'n'.repeat(200));
      expect(longest.code).toBe(0);
      const tooLong = await cli(env, 'keys', 'create', '--name', 'n'.repeat(201));
      expect(tooLong.code).toBe(2);
      expect(tooLong.err).toContain('--name is longer than 200 characters');
      const missing = await cli(env, 'keys', 'create', '--name', 'x', '--workspace', 'no-such-ws');
      expect(missing.code).toBe(1);
      expect(missing.err).toContain('no workspace "no-such-ws"');
    },
    SEVERAL_RUNS_MS,
  );

  test(
    'workspaces cache on|off|default sets the workspace switch the management API shows',
    async () => {
      const created = await cli(env, 'keys', 'create', '--name', 'cache admin', '--management');
      const secret = /secret \(shown once, store it now\): (\S+)/.exec(created.out)?.[1] as string;
      // The CLI and the gateway take turns on the database (an embedded data dir has one user at a time).
      const shownSwitch = async () => {
        const db = await target.open(env);
        try {
          const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
          const res = await request(app).get('/api/v1/workspaces/default').set('Authorization', bearer(secret));
          expect(res.status).toBe(200);
          return res.body.data.is_embeddings_cache_enabled;
        } finally {
          await db.close();
        }
      };
      expect(await shownSwitch()).toBeNull();
      const on = await cli(env, 'workspaces', 'cache', 'on', '--workspace', 'default');
      expect([on.code, on.out]).toEqual([0, 'embeddings cache of workspace default: on']);
      expect(await shownSwitch()).toBe(true);
      expect((await cli(env, 'workspaces', 'cache', 'off')).code).toBe(0);
      expect(await shownSwitch()).toBe(false);
      expect((await cli(env, 'workspaces', 'cache', 'default')).out).toBe(
        'embeddings cache of workspace default: gateway default',
      );
      expect(await shownSwitch()).toBeNull();
      expect((await cli(env, 'workspaces', 'cache', 'on', '--workspace', 'nope')).code).toBe(1);
    },
    SEVERAL_RUNS_MS,
  );

  test(
    'keys revoke and keys rotate (issue 43 item 9): the last management key is rotated, never revoked; secrets work as printed',
    async () => {
      const created = await cli(env, 'orgs', 'create', 'Rotating Co');
      const orgId = /\(([0-9a-f-]{36})\) with workspace/.exec(created.out)?.[1] as string;
      const first = /management key \(shown once, store it now\): (\S+)/.exec(created.out)?.[1] as string;
      const org = ['--org', orgId];

      const refused = await cli(env, 'keys', 'revoke', hashSecret(first), ...org);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/last enabled management key.*Rotate it instead.*switchyard keys rotate/);

      const rotated = await cli(env, 'keys', 'rotate', hashSecret(first).toUpperCase(), ...org);
      expect(rotated.code).toBe(0);
      expect(rotated.out).toContain(`old hash ${hashSecret(first)} revoked`);
      expect(rotated.out).toContain('running gateways stop accepting it within 10000 ms');
      const second = /secret \(shown once, store it now\): (\S+)/.exec(rotated.out)?.[1] as string;

      const spare = await cli(env, 'keys', 'create', '--name', 'spare', '--management', ...org);
      const spareSecret = /secret \(shown once, store it now\): (\S+)/.exec(spare.out)?.[1] as string;
      // Redis configured but not answering: the key is revoked all the same, and the CLI says when gateways notice.
      const revoked = await cli(
        { ...env, REDIS_URL: 'redis://127.0.0.1:9' },
        'keys',
        'revoke',
        hashSecret(spareSecret),
        ...org,
      );
      expect([revoked.code, revoked.out]).toEqual([
        0,
        `revoked management key "spare" (hash ${hashSecret(spareSecret)})\nRedis did not answer: running gateways stop accepting it within 10000 ms (their key cache's TTL)`,
      ]);

      const api = await cli(env, 'keys', 'create', '--name', 'worker', ...org);
      const apiSecret = /secret \(shown once, store it now\): (\S+)/.exec(api.out)?.[1] as string;
      const notManagement = await cli(env, 'keys', 'rotate', hashSecret(apiSecret), ...org);
      expect([notManagement.code, notManagement.err]).toEqual([
        1,
        expect.stringContaining('Only management keys are rotated here'),
      ]);
      // Another organization's key is not this one's to revoke.
      const bystander = /\(([0-9a-f-]{36})\) with workspace/.exec(
        (await cli(env, 'orgs', 'create', 'Bystander Co')).out,
      )?.[1] as string;
      const foreign = await cli(env, 'keys', 'revoke', hashSecret(apiSecret), '--org', bystander);
      expect([foreign.code, foreign.err]).toEqual([
        1,
        expect.stringContaining(`no key ${hashSecret(apiSecret)} in organization Bystander Co`),
      ]);

      const db = await target.open(env);
      try {
        const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
        const status = async (secret: string) =>
          (await request(app).get('/api/v1/key').set('Authorization', bearer(secret))).status;
        expect([await status(first), await status(second), await status(spareSecret), await status(apiSecret)]).toEqual(
          [401, 200, 401, 200],
        );
      } finally {
        await db.close();
      }
      const list = await cli(env, 'keys', 'list', ...org);
      expect(list.out).toContain(hashSecret(second));
      expect(list.out).not.toContain(hashSecret(first));
      // A dozen CLI runs, each opening (and on the embedded data dir, locking and migrating) the database.
    },
    2 * SEVERAL_RUNS_MS,
  );

  /** argv for a test title, long values shortened. */
  const shown = (argv: string[]) =>
    JSON.stringify(argv.map((a) => (a.length > 20 ? `${a.slice(0, 4)}…(${a.length} chars)` : a)));
  test.each(
    [
      [['frobnicate']],
      [['users', 'add']],
      [['users', 'add', 'u1']],
      [['users', 'add', 'u1', '--role', 'owner']],
      [['users', 'add', 'bad id!', '--role', 'admin']],
      [['keys', 'create']],
      [['keys', 'create', '--name', 'x', '--unknown-flag']],
      [['orgs', 'create']],
      [[]],
      [['keys', 'create', '--name', 'n'.repeat(201)]],
      [['keys', 'create', '--name', 'x', '--role', 'admin']],
      [['keys', 'create', '--name', 'x', '--workspace', 'w'.repeat(101)]],
      [['keys', 'list', '--org', 'not-a-uuid']],
      [['users', 'list', 'extra']],
      [['orgs', 'create', 'o'.repeat(201)]],
      [['migrate', 'now']],
      [['workspaces', 'cache']],
      [['workspaces', 'cache', 'maybe']],
      [['workspaces', 'cache', 'on', '--name', 'x']],
      [['keys', 'revoke']],
      [['keys', 'revoke', 'not-a-hash']],
      [['keys', 'rotate', 'a'.repeat(64), 'b'.repeat(64)]],
      [['keys', 'rotate', 'a'.repeat(64), '--name', 'x']],
    ].map(([argv]) => [shown(argv as string[]), argv as string[]] as const),
  )('usage error %s → exit 2 with usage text', async (_title, argv) => {
    const res = await cli(env, ...argv);
    expect(res.code).toBe(2);
    expect(res.out + res.err).toContain('usage: switchyard');
  });
});

test('usage errors exit 2 before the database is opened, even while the gateway holds the data dir', async () => {
  const dataDir = await seededDataDir('sy-cli-usage-');
  const held = await openPglite({ dataDir });
  try {
    for (const argv of [
      ['users', 'add', 'bad id!', '--role', 'admin'],
      ['keys', 'create', '--name', 'n'.repeat(201)],
      ['keys', 'create'],
      ['users', 'add', 'u1', '--role', 'owner'],
    ]) {
      // No wall-clock bound (a busy machine stretches any): the held lock is the proof. Opening the
      // data dir would have failed on it, and said so, instead of answering with the usage.
      const res = await cli({ SWITCHYARD_DATA_DIR: dataDir }, ...argv);
      expect(res.code).toBe(2);
      expect(res.err).toContain('usage: switchyard');
      expect(res.err).not.toContain('in use by another Switchyard process');
    }
    // Nor does a usage error need a valid configuration or database at all.
    const noDb = await cli(
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      'keys',
      'create',
      '--name',
      'n'.repeat(201),
    );
    expect(noDb.code).toBe(2);
  } finally {
    await held.close();
  }
});

test('the CLI refuses a data dir the gateway holds, and leaves it intact', async () => {
  const dataDir = await seededDataDir('sy-cli-lock-');
  const held = await openPglite({ dataDir });
  try {
    const res = await cli({ SWITCHYARD_DATA_DIR: dataDir }, 'orgs', 'create', 'Intruder');
    expect(res.code).toBe(1);
    expect(res.err).toContain('is in use by another Switchyard process');
    await expect(held.query('SELECT 1 AS ok')).resolves.toEqual([{ ok: 1 }]);
  } finally {
    await held.close();
  }
  const after = await cli({ SWITCHYARD_DATA_DIR: dataDir }, 'migrate');
  expect(after.code).toBe(0);
});

describeIf(REDIS_URL && DATABASE_URL)('keys revoke with Redis configured', () => {
  const target = targets.find((t) => t.name === 'postgres') as Target;

  test('running gateways are told through Redis and refuse the key at once, long before their key cache expires', async () => {
    const env = await target.env();
    const prefix = `t:${uniqueId()}:`;
    const created = await cli(env, 'orgs', 'create', 'Cached Co');
    const orgId = /\(([0-9a-f-]{36})\) with workspace/.exec(created.out)?.[1] as string;
    const spare = await cli(env, 'keys', 'create', '--name', 'spare', '--management', '--org', orgId);
    const secret = /secret \(shown once, store it now\): (\S+)/.exec(spare.out)?.[1] as string;
    const db = await target.open(env);
    const kv = await openTestRedisKv(prefix);
    try {
      const { app } = await gatewayApp(db, kv, { auth: { keyCacheTtlMs: 600_000 } });
      await request(app).get('/api/v1/keys').set('Authorization', bearer(secret)).expect(200); // now cached for 10 minutes
      // The gateway's own handler was subscribed first, so it has dropped the key when this one hears the message.
      const told = new Promise<string>((resolve) => {
        void kv.subscribe('cache:keys:invalidate', resolve);
        setTimeout(() => resolve('no message within 5 s'), 5000).unref();
      });

      const revoked = await cli(
        { ...env, REDIS_URL, REDIS_KEY_PREFIX: prefix },
        'keys',
        'revoke',
        hashSecret(secret),
        '--org',
        orgId,
      );
      expect(revoked.code).toBe(0);
      expect(revoked.out).toContain('running gateways were told through Redis: they stop accepting it now');
      expect(await told).toBe(hashSecret(secret));
      expect((await request(app).get('/api/v1/keys').set('Authorization', bearer(secret))).status).toBe(401);
    } finally {
      await kv.close();
      await db.close();
      await target.cleanup(env);
    }
  }, 60_000);
});
