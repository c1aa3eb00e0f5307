/**
 * Builds a gateway over test stores: an organization with its management key, an app for
 * supertest, and helpers to mint inference keys. Config comes from defaults plus explicit
 * overrides only (never the CI environment), with logs silenced.
 */
import type { Express } from 'express';
import request from 'supertest';
import { loadConfig, type ConfigOverrides } from '../../src/config';
import { assembleDeps, type AppDeps, type AssembleOptions } from '../../src/deps';
import { createApp } from '../../src/app';
import type { Database } from '../../src/store/db';
import type { Kv } from '../../src/kv/kv';
import { provisionOrg } from '../../src/orgs/provision';
import { createLogger } from '../../src/observability/logger';
import { KVS, TS_LOADER, type DbFactory } from './services';

/** A test gateway and the tenant it was created with. */
export interface TestGateway {
  app: Express;
  deps: AppDeps;
  /** Management key secret of the tenant's organization. */
  mgmtKey: string;
  orgId: string;
  defaultWorkspaceId: string;
}

/** Config for tests: defaults + overrides, silent logs, generous rate limit. */
export function testConfig(overrides: ConfigOverrides = {}) {
  return loadConfig(
    {},
    {
      ...overrides,
      log: { level: 'silent', ...overrides.log },
      rateLimit: { limit: 100000, ...overrides.rateLimit },
      // Tests fix `random` at 0, which would sample every request for the rankings classifier.
      rankings: { sampleRate: 0, ...overrides.rankings },
      analytics: { rateLimit: { windowMs: 60000, limit: 100000 }, ...overrides.analytics },
    },
  );
}

/**
 * What a test gives its gateway's deps when they are built (they are frozen then): a logger or
 * metrics of its own, and parts replaced or wrapped (`wrap`, e.g. a recording spend guard; see
 * `DepsWrappers` in src/deps.ts and test/helpers/switchable.ts).
 */
export type GatewayOptions = Pick<AssembleOptions, 'logger' | 'metrics' | 'wrap'>;

/** An app over `db`/`kv` with no tenant created (for a second instance sharing stores). */
export async function gatewayApp(
  db: Database,
  kv: Kv,
  overrides: ConfigOverrides = {},
  clock?: () => number,
  options: GatewayOptions = {},
) {
  const config = testConfig(overrides);
  // A fixed draw keeps the default provider balancing on the cheapest endpoint, so tests are deterministic.
  const { logger = createLogger('silent'), metrics, wrap } = options;
  const deps = await assembleDeps(config, db, kv, {
    logger,
    metrics,
    wrap,
    clock,
    random: () => 0,
    workerPreload: TS_LOADER,
  });
  return { app: createApp(deps), deps };
}

/** A new organization (with default workspace and management key) plus an app. */
export async function createTestGateway(
  db: Database,
  kv: Kv,
  overrides: ConfigOverrides = {},
  clock?: () => number,
  options: GatewayOptions = {},
): Promise<TestGateway> {
  const { app, deps } = await gatewayApp(db, kv, overrides, clock, options);
  const org = await db.transaction((tx) => provisionOrg(tx, 'Test Org'));
  return { app, deps, mgmtKey: org.secret, orgId: org.org.id, defaultWorkspaceId: org.workspace.id };
}

/** The usual per-suite setup: a fresh database of `dbKind`, an in-process `Kv` and a gateway over them. */
export async function openTestGateway(
  dbKind: DbFactory,
  overrides: ConfigOverrides = {},
  clock?: () => number,
  options: GatewayOptions = {},
): Promise<{ db: Database; kv: Kv; gw: TestGateway }> {
  const db = await dbKind.open();
  const kv = await KVS[0]!.open();
  return { db, kv, gw: await createTestGateway(db, kv, overrides, clock, options) };
}

/** Create an inference key through the API and return its secret and hash. */
export async function createInferenceKey(
  gw: Pick<TestGateway, 'app' | 'mgmtKey'>,
  body: Record<string, unknown> = { name: 'test key' },
): Promise<{ secret: string; hash: string }> {
  const res = await request(gw.app).post('/api/v1/keys').set('Authorization', `Bearer ${gw.mgmtKey}`).send(body);
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { secret: res.body.key, hash: res.body.data.hash };
}

/** `Authorization` header value for a secret. */
export function bearer(secret: string): string {
  return `Bearer ${secret}`;
}
