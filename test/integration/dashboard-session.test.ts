/**
 * Issue 37 item 2: the dashboard's sign-in. A management key is exchanged once for a signed,
 * HttpOnly, SameSite=Strict session cookie; the cookie then stands in for the key on the API,
 * state changes need the session's CSRF token, signing out ends the session on the server (a
 * replayed cookie is refused), sessions expire, a tampered cookie is worthless, an inference key
 * or a wrong key is refused, and a session sees only its own organization. Also the dashboard's
 * files: security headers, cache headers, client routes, "not built", and the off switch.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { KVS, openTestPglite } from '../helpers/services';
import { bearer, createInferenceKey, createTestGateway, gatewayApp, type TestGateway } from '../helpers/gateway';
import { createApp } from '../../src/app';
import { provisionOrg } from '../../src/orgs/provision';
import { DashboardSessions } from '../../src/dashboard/sessions';
import type { Database } from '../../src/store/db';
import { expectSchema } from '../helpers/expect-schema';
import type { Kv } from '../../src/kv/kv';

const TTL_MS = 3_600_000;
const assets = mkdtempSync(path.join(tmpdir(), 'sy-dashboard-'));
mkdirSync(path.join(assets, 'assets'));
writeFileSync(
  path.join(assets, 'index.html'),
  '<!doctype html><title>Switchyard</title><script type="module" src="/dashboard/assets/app-1a2b3c.js"></script>',
);
writeFileSync(
  path.join(assets, 'assets', 'app-1a2b3c.js'),
  `console.log(${JSON.stringify('dashboard '.repeat(1000))})`,
);

/** The `name=value` part of the session cookie a response set. */
function sessionCookie(res: request.Response): string {
  const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = set.find((c) => c.startsWith('switchyard_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return cookie.split(';')[0] as string;
}

describe.each(KVS)('dashboard sessions on $name', (kvKind) => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  let now = Date.now();
  const clock = () => now;

  beforeAll(async () => {
    db = await openTestPglite();
    kv = await kvKind.open();
    gw = await createTestGateway(db, kv, { dashboardSessions: { ttlMs: TTL_MS, signInPerMinute: 1000 } }, clock);
    gw.app = createApp(gw.deps, { dashboardDir: assets });
  });
  afterAll(async () => {
    await gw.deps.recorder.close();
    await kv.close();
    await db.close();
  });

  const signIn = async (key = gw.mgmtKey) => {
    const res = await request(gw.app).post('/dashboard/api/session').send({ key }).expect(200);
    expectSchema(res.body, 'dashboard.session.response');
    return { cookie: sessionCookie(res), csrf: res.body.data.csrf_token as string, res };
  };

  test('signing in sets a signed HttpOnly SameSite=Strict cookie and never echoes the key', async () => {
    const { res, csrf } = await signIn();
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
    expect(set).toMatch(/switchyard_session=s%3A[^;]+\.[^;]+;/);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).toMatch(/Path=\//);
    expect(set).toMatch(new RegExp(`Max-Age=${TTL_MS / 1000}`));
    expect(set).not.toMatch(/Secure/); // plain HTTP here; behind TLS (req.secure) it is Secure
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.data.key).toMatchObject({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      label: expect.stringContaining('...'),
    });
    expect(JSON.stringify(res.body) + set).not.toContain(gw.mgmtKey.slice(9));
  });

  test('the cookie stands in for the key: reads work, state changes need the CSRF token', async () => {
    const { cookie, csrf } = await signIn();
    const viaBearer = await request(gw.app).get('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey)).expect(200);
    const viaCookie = await request(gw.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
    expect(viaCookie.body).toEqual(viaBearer.body);
    expect(
      (await request(gw.app).get('/dashboard/api/session').set('Cookie', cookie).expect(200)).body.data.csrf_token,
    ).toBe(csrf);

    for (const header of [undefined, 'wrong-token', `${csrf}x`]) {
      const req = request(gw.app).post('/api/v1/keys').set('Cookie', cookie);
      if (header) req.set('X-CSRF-Token', header);
      const res = await req.send({ name: 'csrf victim' });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/CSRF token/);
    }
    const after = await request(gw.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
    expect(after.body.data.map((k: { name: string }) => k.name)).not.toContain('csrf victim');
    const created = await request(gw.app)
      .post('/api/v1/keys')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .send({ name: 'from the dashboard' });
    expect(created.status).toBe(201);
  });

  test('signing out ends the session on the server: the same cookie replayed is refused', async () => {
    const { cookie, csrf } = await signIn();
    expect((await request(gw.app).delete('/dashboard/api/session').set('Cookie', cookie)).status).toBe(403);
    const out = await request(gw.app)
      .delete('/dashboard/api/session')
      .set('Cookie', cookie)
      .set('X-CSRF-Token', csrf)
      .expect(200);
    expect(out.body).toEqual({ data: { signed_out: true } });
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? []).join()).toMatch(
      /switchyard_session=;.*Expires=Thu, 01 Jan 1970/,
    );
    const replay = await request(gw.app).get('/api/v1/keys').set('Cookie', cookie);
    expect(replay.status).toBe(401);
    expect(replay.body.error.message).toBe('The dashboard session has ended; sign in again');
    expect((await request(gw.app).get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(401);
  });

  test('a session expires after its lifetime', async () => {
    const { cookie } = await signIn();
    now += TTL_MS - 1000;
    await request(gw.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
    now += 2000;
    expect((await request(gw.app).get('/api/v1/keys').set('Cookie', cookie)).status).toBe(401);
  });

  test('a tampered or unsigned cookie is worthless', async () => {
    const { cookie } = await signIn();
    const [name, value] = cookie.split('=') as [string, string];
    // One character of the signature changed (always a different one: the earlier version could
    // write back the character it replaced, or cut into a percent-escape).
    const signed = decodeURIComponent(value);
    const sig = signed.lastIndexOf('.') + 1;
    const flipped = encodeURIComponent(
      signed.slice(0, sig) + (signed[sig] === 'A' ? 'B' : 'A') + signed.slice(sig + 1),
    );
    const unsigned = `${name}=${encodeURIComponent(signed.replace(/^s:/, '').split('.')[0] as string)}`;
    for (const forged of [`${name}=${flipped}`, unsigned]) {
      const res = await request(gw.app).get('/api/v1/keys').set('Cookie', forged);
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('Missing Authentication header');
    }
  });

  test('a wrong key, an inference key and a missing key are refused with clear messages', async () => {
    const wrong = await request(gw.app)
      .post('/dashboard/api/session')
      .send({ key: 'sk-sy-v1-' + '0'.repeat(64) });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toEqual({ code: 401, message: 'Invalid API key' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const inference = await createInferenceKey(gw);
    const refused = await request(gw.app).post('/dashboard/api/session').send({ key: inference.secret });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('The dashboard needs a management key; this is an API key for inference');
    expect((await request(gw.app).post('/dashboard/api/session').send({})).status).toBe(400);
    expect(
      (
        await request(gw.app)
          .post('/dashboard/api/session')
          .send({ key: 'x'.repeat(10_000) })
      ).status,
    ).toBe(413);
  });

  test('any other sign-in body is a 4xx envelope that opens no session', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.record({ key: fc.jsonValue() })), async (body) => {
        const res = await request(gw.app)
          .post('/dashboard/api/session')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect([400, 401]).toContain(res.status);
        expect(res.body.error.code).toBe(res.status);
        expect(res.headers['set-cookie']).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  test('a session sees its own organization only, and a bearer key on the request wins over the cookie', async () => {
    const other = await db.transaction((tx) => provisionOrg(tx, 'Other Org'));
    const theirs = await createInferenceKey({ app: gw.app, mgmtKey: other.secret }, { name: 'theirs' });
    const { cookie } = await signIn();
    expect((await request(gw.app).get(`/api/v1/keys/${theirs.hash}`).set('Cookie', cookie)).status).toBe(404);
    const listed = await request(gw.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
    expect(listed.body.data.map((k: { hash: string }) => k.hash)).not.toContain(theirs.hash);
    const withBearer = await request(gw.app)
      .get('/api/v1/keys')
      .set('Cookie', cookie)
      .set('Authorization', bearer(theirs.secret));
    expect(withBearer.status).toBe(403); // the inference key's answer, not the session's
  });

  test('with the session store unreachable, sign-in and session calls answer 503, and work again once it is back', async () => {
    let down = true;
    const flaky = Object.create(kv, {
      run: {
        value: (...args: Parameters<Kv['run']>) =>
          down ? Promise.reject(new Error('Command timed out')) : kv.run(...args),
      },
    }) as Kv;
    const sessions = new DashboardSessions(flaky, { secret: null, ttlMs: TTL_MS, clock });
    const app = createApp({ ...gw.deps, dashboard: sessions }, { dashboardDir: assets });
    const refused = await request(app).post('/dashboard/api/session').send({ key: gw.mgmtKey });
    expect(refused.status).toBe(503);
    expect(refused.body.error.metadata).toEqual({ reason: 'session_store_unavailable' });
    expect((await request(app).get('/api/v1/keys').set('Cookie', 'switchyard_session=s%3Aabc.def')).status).toBe(503);
    down = false;
    const cookie = sessionCookie(
      await request(app).post('/dashboard/api/session').send({ key: gw.mgmtKey }).expect(200),
    );
    await request(app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
  });

  test('a second replica on the same stores honours the session (shared signing secret)', async () => {
    const { cookie } = await signIn();
    const replica = await gatewayApp(db, kv, {}, clock);
    await request(replica.app).get('/api/v1/keys').set('Cookie', cookie).expect(200);
    await replica.deps.recorder.close();
  });

  test("the session says the rankings scope, so the Rankings page offers today's traffic only where it is published", async () => {
    const { cookie, res } = await signIn();
    expect(res.body.data.rankings_scope).toBe('organization');
    const installation = await gatewayApp(db, kv, { rankings: { scope: 'installation' } }, clock);
    expect(
      (await request(installation.app).get('/dashboard/api/session').set('Cookie', cookie).expect(200)).body.data
        .rankings_scope,
    ).toBe('installation');
    await installation.deps.recorder.close();
  });
});

describe('dashboard files and switches', () => {
  let db: Database;
  let kv: Kv;
  let gw: TestGateway;
  beforeAll(async () => {
    db = await openTestPglite();
    kv = await KVS[0]!.open();
    gw = await createTestGateway(db, kv, { dashboardSessions: { ttlMs: TTL_MS, signInPerMinute: 3 } });
  });
  afterAll(async () => {
    await gw.deps.recorder.close();
    await kv.close();
    await db.close();
  });

  test('pages answer index.html uncached, under a strict CSP; hashed assets are immutable', async () => {
    const app = createApp(gw.deps, { dashboardDir: assets });
    for (const page of ['/dashboard', '/dashboard/', '/dashboard/keys', '/dashboard/workspaces/abc']) {
      const res = await request(app).get(page).expect(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.text).toContain('/dashboard/assets/app-1a2b3c.js');
    }
    const asset = await request(app).get('/dashboard/assets/app-1a2b3c.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.text).toContain('dashboard dashboard');
    const missing = await request(app).get('/dashboard/assets/app-000000.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe(404);
    expect((await request(app).get('/dashboard/api/nothing')).status).toBe(404);
  });

  test.each([
    '/dashboard/assets/..%2f..%2fpackage.json',
    '/dashboard/assets/%2e%2e/%2e%2e/package.json',
    '/dashboard/assets/..%5c..%5cpackage.json',
  ])(
    'a path out of the assets folder (%s) is a 404 envelope, not a 403 about management keys (issue 43 item 10)',
    async (url) => {
      const res = await request(createApp(gw.deps, { dashboardDir: assets })).get(url);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
      expect(res.text).not.toContain('"name": "switchyard"');
    },
  );

  test('behind a TLS-terminating proxy (TRUST_PROXY) the cookie is Secure', async () => {
    const tls = await createTestGateway(db, kv, { server: { trustProxy: true } });
    const res = await request(createApp(tls.deps, { dashboardDir: assets }))
      .post('/dashboard/api/session')
      .set('X-Forwarded-Proto', 'https')
      .send({ key: tls.mgmtKey })
      .expect(200);
    expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).join()).toMatch(/switchyard_session=.*; Secure/);
    await tls.deps.recorder.close();
  });

  test('an unbuilt dashboard says how to build it', async () => {
    const app = createApp(gw.deps, { dashboardDir: path.join(assets, 'nowhere') });
    const res = await request(app).get('/dashboard');
    expect(res.status).toBe(503);
    expect(res.body.error.message).toBe('The dashboard is not built; run npm run build');
  });

  test('sign-in attempts are rate-limited per client address', async () => {
    const app = createApp(gw.deps, { dashboardDir: assets });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await request(app)
            .post('/dashboard/api/session')
            .send({ key: 'guess' + i })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  test('DASHBOARD_ENABLED=false: no /dashboard, and session cookies are not read by the API', async () => {
    const off = await createTestGateway(db, kv, { dashboard: { enabled: false, sessionSecret: null } });
    expect(off.deps.dashboard).toBeNull();
    expect((await request(off.app).get('/dashboard')).status).toBe(404);
    const on = await request(createApp(gw.deps, { dashboardDir: assets }))
      .post('/dashboard/api/session')
      .send({ key: gw.mgmtKey });
    const cookie = sessionCookie(on);
    expect((await request(off.app).get('/api/v1/keys').set('Cookie', cookie)).status).toBe(401);
    await off.deps.recorder.close();
  });
});
