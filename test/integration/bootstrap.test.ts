/**
 * First-start bootstrap and migrations: exactly one default organization with its workspace
 * and management key on an empty database (also when replicas start together), the exact
 * secret from SWITCHYARD_BOOTSTRAP_KEY when given, and nothing on later starts.
 */
import request from 'supertest';
import { DATABASES, DATABASE_URL, describeIf, openTestPglite, uniqueId } from '../helpers/services';
import { bearer, gatewayApp } from '../helpers/gateway';
import { bootstrapIfEmpty } from '../../src/orgs/provision';
import { listOrgs } from '../../src/orgs/repository';
import { openPostgres } from '../../src/store/postgres';
import { migrate, listMigrations } from '../../src/store/migrate';
import { MemoryKv } from '../../src/kv/memory';

describe.each(DATABASES)('bootstrap on $name', (dbKind) => {
  test('creates the default organization once, with a working management key', async () => {
    const db = await dbKind.open();
    try {
      const created = await bootstrapIfEmpty(db, null);
      expect(created).not.toBeNull();
      expect(created!.secret).toMatch(/^sk-sy-v1-[0-9a-f]{64}$/);
      expect(created!.workspace.slug).toBe('default');
      expect(await bootstrapIfEmpty(db, null)).toBeNull();
      expect(await listOrgs(db)).toHaveLength(1);
      const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
      const me = await request(app).get('/api/v1/key').set('Authorization', bearer(created!.secret)).expect(200);
      expect(me.body.data).toMatchObject({
        is_management_key: true,
        workspace_id: created!.workspace.id,
        organization_id: created!.org.id,
      });
    } finally {
      await db.close();
    }
  });

  test('SWITCHYARD_BOOTSTRAP_KEY becomes the management key exactly', async () => {
    const db = await dbKind.open();
    try {
      const chosen = 'automation-secret-0123456789abcdef';
      const created = await bootstrapIfEmpty(db, chosen);
      expect(created!.secret).toBe(chosen);
      const { app } = await gatewayApp(db, new MemoryKv(`t:${uniqueId()}:`));
      await request(app).get('/api/v1/keys').set('Authorization', bearer(chosen)).expect(200);
    } finally {
      await db.close();
    }
  });
});

test('migrations are recorded and not re-applied', async () => {
  const db = await openTestPglite();
  try {
    expect(await migrate(db)).toEqual([]);
    const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(listMigrations().map((m) => m.version));
  } finally {
    await db.close();
  }
});

describeIf(DATABASE_URL)('replicas starting together on one Postgres', () => {
  test('migrate and bootstrap exactly once', async () => {
    const schema = `t_${uniqueId()}`;
    const replicas = await Promise.all(
      [1, 2, 3].map(() => openPostgres({ url: DATABASE_URL as string, schema, poolSize: 3 })),
    );
    try {
      const applied = await Promise.all(replicas.map((db) => migrate(db)));
      expect(applied.flat()).toHaveLength(listMigrations().length);
      const created = await Promise.all(replicas.map((db) => bootstrapIfEmpty(db, null)));
      expect(created.filter(Boolean)).toHaveLength(1);
      expect(await listOrgs(replicas[0]!)).toHaveLength(1);
    } finally {
      await replicas[0]!.exec(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(replicas.map((db) => db.close()));
    }
  });
});
