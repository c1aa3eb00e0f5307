/**
 * The admin dashboard in a real browser: headless Chromium against a gateway started here (on
 * 127.0.0.1, over the test stores) with seeded usage. Sign-in (wrong and non-management keys
 * refused with their messages), the overview chart drawn from the seeded rows, key creation
 * with its one-time secret, budgets as bars and the ordering error next to its field, the usage
 * explorer's chart and CSV (every bucket of the window drawn, minute buckets over a time-of-day
 * range), rankings with today's traffic, providers after real traffic through fake upstreams
 * (failing first, unconfigured grey and last), axe-core on every page, no CSP violation, the
 * first page's transfer size, a 360 px viewport without horizontal scroll or key labels broken
 * inside, and sign-out ending the session on the server. Usage rows are seeded as the gateway
 * records them (provider display names). `npm run screenshots` rewrites docs/images/dashboard-*.png.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { BrowserContext, Locator, Page, Request as PwRequest } from 'playwright-core';
import request from 'supertest';
import { createTestGateway, createInferenceKey, bearer, type TestGateway } from '../helpers/gateway';
import { DATABASES, KVS } from '../helpers/services';
import { CHROMIUM_PROBLEM, ensureDashboardBuilt, launchBrowser, seriousViolations } from '../helpers/browser';
import { event } from '../helpers/analytics-fixture';
import { tempDir } from '../helpers/temp-dir';
import { insertUsageEvents } from '../../src/usage/direct-recorder';
import { closeDependencies } from '../../src/deps';
import { PROJECT_ROOT } from '../../src/paths';
import type { AttemptRecord } from '../../src/routing/run-with-fallback';
import { providerEnvName } from '../../src/config';
import { formatUsd } from '../../src/catalog/usd';
import { startFake, type FakeUpstream } from '../fakes/server';
import { cohereWire, openaiWire } from '../fakes/wires';

const DAY = 86_400_000;
const PAGES = ['/', '/keys', '/workspaces', '/usage', '/rankings', '/providers'] as const;
const FIRST_PAGE_BUDGET = 250 * 1024;

/** The real stores when running (closest to production), else PGlite and the in-process Kv. */
const dbKind = DATABASES[DATABASES.length - 1]!;
const kvKind = KVS[KVS.length - 1]!;

const suite = CHROMIUM_PROBLEM ? describe.skip : describe;

suite(`dashboard in Chromium (${dbKind.name}, ${kvKind.name})`, () => {
  let gw: TestGateway;
  let server: Server;
  let base: string;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let context: BrowserContext;
  let inferenceKey: string;
  let fakes: { openai: FakeUpstream; cohere: FakeUpstream };
  const consoleLines: string[] = [];
  const firstPage = { measuring: true, transferred: 0, gzip: 0, pending: [] as Promise<void>[] };

  beforeAll(async () => {
    ensureDashboardBuilt();
    // Two providers configured, each pointing at a fake upstream on 127.0.0.1; the rest have no key.
    fakes = { openai: await startFake(openaiWire), cohere: await startFake(cohereWire) };
    const providers = {
      [providerEnvName('openai')]: { baseUrl: `${fakes.openai.origin}/v1`, apiKey: 'test-key-openai' },
      [providerEnvName('cohere')]: { baseUrl: fakes.cohere.origin, apiKey: 'test-key-cohere' },
    };
    gw = await createTestGateway(await dbKind.open(), await kvKind.open(), { providers });
    inferenceKey = (await createInferenceKey(gw, { name: 'alpha' })).secret;
    const alpha = (await request(gw.app).get('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey))).body.data[0]
      .hash as string;
    const beta = (await createInferenceKey(gw, { name: 'beta' })).hash;
    await seedUsage(gw, alpha, beta);
    await gw.deps.rankings.rollup.run();
    // Recent upstream attempts as the fallback runner reports them: 1 of 4 failed.
    const attempt = (outcome: AttemptRecord['outcome']): AttemptRecord => ({
      provider: 'openai',
      outcome,
      status: null,
      endpoint: 'openai:openai/text-embedding-3-small',
      ms: 100,
    });
    gw.deps.routing.stats.record(gw.orgId, [attempt('ok'), attempt('ok'), attempt('server'), attempt('ok')]);
    server = gw.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    ({ page, context } = browser);
    page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
    page.on('requestfinished', (r) => {
      if (firstPage.measuring) firstPage.pending.push(measure(r, firstPage));
    });
  }, 120000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    if (gw) await closeDependencies(gw.deps);
    await Promise.all([fakes?.openai.close(), fakes?.cohere.close()]);
  }, 60000);

  test('a wrong key is refused with its message', async () => {
    await page.goto(`${base}/dashboard/`);
    await signInWith(page, `sk-sy-v1-${'0'.repeat(64)}`);
    await expectAlert(page, /Invalid API key/);
  });

  test('a non-management key is refused with a message saying a management key is needed', async () => {
    await signInWith(page, inferenceKey);
    await expectAlert(page, /management key/i);
  });

  test('signs in with the management key; the overview shows the seeded spend and its chart has drawn data', async () => {
    await signInWith(page, gw.mgmtKey);
    await page.getByRole('navigation', { name: 'Dashboard pages' }).waitFor();
    await settled(page);
    // Four significant digits under a dollar (issue 61 item 8): $0.212 no longer reads "$0.21".
    expect(await figure(page, 'Spend, 30 days')).toBe('$0.212');
    expect(await figure(page, 'Requests, 30 days')).toBe('5');
    expect(await figure(page, 'Requests, 7 days')).toBe('4');
    expect(await figure(page, 'Upstream error rate, last 60 min')).toBe('25.0 % of 4');
    expect(
      Number(await page.locator('.chart [data-points]').first().getAttribute('data-points')),
    ).toBeGreaterThanOrEqual(5);
    expect(await colouredPixels(page)).toBeGreaterThan(50);
    await expectMoneyAxis(page);
    expect(await page.locator('.chart .legend li').allTextContents()).toEqual([
      'openai/text-embedding-3-large',
      'cohere/embed-v4.0',
      'openai/text-embedding-3-small',
    ]);
    await expect(page.getByRole('region', { name: 'The five keys that spent most' }).textContent()).resolves.toMatch(
      /alpha.*beta/s,
    );
  });

  test(`the first page (sign-in, then the overview) transfers at most ${FIRST_PAGE_BUDGET / 1024} KB gzipped`, async () => {
    firstPage.measuring = false;
    await Promise.all(firstPage.pending);
    console.log(`first page: ${firstPage.transferred} bytes transferred, ${firstPage.gzip} bytes gzipped`);
    expect(firstPage.gzip).toBeGreaterThan(10_000); // the app's script was counted
    expect(firstPage.gzip).toBeLessThanOrEqual(FIRST_PAGE_BUDGET);
    expect(firstPage.transferred).toBeLessThanOrEqual(2 * FIRST_PAGE_BUDGET);
  });

  test('a state-changing call without the CSRF token is refused', async () => {
    const status = await page.evaluate<number>(
      `fetch('/api/v1/keys', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"no-csrf"}' }).then((r) => r.status)`,
    );
    expect(status).toBe(403);
  });

  test('creates a key: the secret is shown once, with a copy button, and the key is listed', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await settled(page);
    await page.getByLabel('Name', { exact: true }).fill('dashboard-made');
    await page.getByLabel('Spending limit in USD (optional)').fill('5');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretField = page.getByLabel('Secret key');
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^sk-sy-v1-[0-9a-f]{64}$/);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await page
      .getByRole('region', { name: /^Keys, newest first/ })
      .getByText('dashboard-made')
      .waitFor();
    const listed = await request(gw.app).get('/api/v1/keys').set('Authorization', bearer(gw.mgmtKey));
    expect(listed.body.data.map((k: { name: string }) => k.name)).toContain('dashboard-made');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await settled(page);
    expect(await page.content()).not.toContain(secret);
    await page.getByText('dashboard-made').first().waitFor();
  });

  test('Delete is styled as a dangerous action, unlike Disable', async () => {
    const disable = page.getByRole('button', { name: 'Disable dashboard-made' });
    const remove = page.getByRole('button', { name: 'Delete dashboard-made' });
    const background = (l: Locator) => css(l, 'backgroundColor');
    expect(await background(remove)).toBe('rgb(180, 35, 24)'); // --danger
    expect(await background(remove)).not.toBe(await background(disable));
  });

  test("changes a key's limit, disables it and deletes it (after a confirmation)", async () => {
    const keyOf = async () =>
      (
        (await request(gw.app).get('/api/v1/keys?include_disabled=true').set('Authorization', bearer(gw.mgmtKey))).body
          .data as Array<{ name: string; limit: number | null; disabled: boolean }>
      ).find((k) => k.name === 'dashboard-made');
    const row = () =>
      page.getByRole('region', { name: /^Keys, newest first/ }).getByRole('row', { name: /dashboard-made/ });
    await page.getByRole('button', { name: 'Change the limit of dashboard-made' }).click();
    await page.getByLabel('Limit in USD for dashboard-made (empty: none)').fill('7.5');
    await page.getByRole('button', { name: 'Save' }).click();
    await row()
      .getByText(/\$7\.50/)
      .waitFor();
    expect((await keyOf())?.limit).toBe(7.5);
    await page.getByRole('button', { name: 'Disable dashboard-made' }).click();
    await page.getByRole('button', { name: 'Enable dashboard-made' }).waitFor();
    expect((await keyOf())?.disabled).toBe(true);
    await page.getByRole('button', { name: 'Delete dashboard-made' }).click();
    expect(await keyOf()).toBeDefined(); // not before the confirmation
    await page.getByRole('button', { name: 'Confirm: delete dashboard-made' }).click();
    await row().waitFor({ state: 'detached' });
    expect(await keyOf()).toBeUndefined();
  });

  test('sets a budget and shows it as a bar with its reset time', async () => {
    await page.getByRole('link', { name: 'Workspaces' }).click();
    await settled(page);
    const card = page.locator('section.workspace[data-slug="default"]');
    await card.getByLabel('Interval').selectOption('weekly');
    await card.getByLabel('Limit in USD').fill('0.25');
    await card.getByRole('button', { name: 'Set budget' }).click();
    const bar = card.locator('.budget[data-interval="weekly"]');
    await bar.waitFor();
    // This week's seeded spend against the new limit.
    const spent = seededThisWeek();
    await expect(bar.textContent()).resolves.toContain(`${formatUsd(spent)} spent of $0.25`);
    await expect(bar.textContent()).resolves.toMatch(/Resets \d{4}-\d{2}-\d{2} 00:00 UTC/);
    expect(await bar.locator('.bar').count()).toBe(1);
    const width = await bar
      .locator('.bar .spent')
      .evaluate((el) => (el as unknown as { style: { width: string } }).style.width);
    expect(parseFloat(width)).toBeCloseTo((spent / 0.25) * 100, 2);
  });

  test('a budget that breaks the ordering rule is refused, the error next to its field', async () => {
    const card = page.locator('section.workspace[data-slug="default"]');
    await card.getByLabel('Interval').selectOption('daily');
    const limit = card.getByLabel('Limit in USD');
    await limit.fill('100');
    await card.getByRole('button', { name: 'Set budget' }).click();
    await page.locator(`[id="${await limit.getAttribute('id')}"][aria-describedby]`).waitFor();
    const errorId = await limit.getAttribute('aria-describedby');
    const message = await page.locator(`[id="${errorId}"]`).textContent();
    expect(message).toMatch(/daily budget .* weekly budget/);
    expect(await limit.getAttribute('aria-invalid')).toBe('true');
    expect(await card.locator('.budget[data-interval="daily"]').count()).toBe(0);
  });

  test('the usage explorer charts the query, lists its rows and downloads them as CSV', async () => {
    await page.getByRole('link', { name: 'Usage explorer' }).click();
    await settled(page);
    // The default query (the last 7 days by model) is answered with the page: four of the seeded records.
    await page.getByRole('heading', { name: 'Result: 4 rows' }).waitFor();
    await page.getByLabel('From (UTC day)').fill(isoDay(Date.now() - 20 * DAY));
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('heading', { name: 'Result: 5 rows' }).waitFor();
    expect(Number(await page.locator('.chart [data-points]').getAttribute('data-points'))).toBeGreaterThanOrEqual(5);
    expect(await colouredPixels(page)).toBeGreaterThan(50);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).toBe('date__day,model,total_usage,request_count');
    expect(csv.length).toBe(1 + 5);
    expect(csv.some((line) => line.includes('cohere/embed-v4.0'))).toBe(true);
  });

  test('a result with a single time bucket is drawn on an axis around that bucket, with a "$" on every y label', async () => {
    await page.getByLabel('From (UTC day)').fill(isoDay(seededAt - TINY_AGO));
    await page.getByLabel('To (UTC day, included)').fill(isoDay(seededAt - TINY_AGO));
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('heading', { name: 'Result: 1 rows' }).waitFor();
    const bucket = dayStartMs(seededAt - TINY_AGO) / 1000;
    const [min, max] = await xScale(page);
    expect(min).toBeLessThan(bucket);
    expect(max).toBeGreaterThan(bucket + DAY / 1000 / 4);
    expect(max - min).toBeLessThanOrEqual((2 * DAY) / 1000);
    // The point is inside the plot, not on its edge.
    expect(bucket - min).toBeGreaterThanOrEqual((max - min) / 4);
    // Sub-cent labels ("$0.0000024") fit: nothing is drawn in the canvas's leftmost columns.
    expect(await colouredPixels(page)).toBeGreaterThan(0);
    expect(await leftEdgeInk(page)).toBe(0);
    await expectMoneyAxis(page);
    // The amount itself (bucket, model, total usage, requests), to the nano-dollar it was recorded at.
    const cells = page.getByRole('region', { name: 'Query rows' }).getByRole('row').nth(1).getByRole('cell');
    expect(await cells.allTextContents()).toEqual([
      new Date(dayStartMs(seededAt - TINY_AGO)).toISOString(),
      'openai/text-embedding-3-small',
      '$0.0000024',
      '1',
    ]);
  });

  test('empty buckets of the window are filled, as on the Overview', async () => {
    await page.getByLabel('From (UTC day)').fill(isoDay(seededAt - 4 * DAY));
    await page.getByLabel('To (UTC day, included)').fill(isoDay(seededAt));
    await page.getByRole('button', { name: 'Run query' }).click();
    // Rows: today and 2 days ago (OpenAI small), 3 days ago (Cohere).
    await page.getByRole('heading', { name: 'Result: 3 rows' }).waitFor();
    // Two lines (one per model), each with a value for all five days of the window.
    expect(Number(await page.locator('.chart [data-points]').getAttribute('data-points'))).toBe(2 * 5);
    const [min, max] = await xScale(page);
    expect(min).toBe(dayStartMs(seededAt - 4 * DAY) / 1000 - DAY / 2000);
    expect(max).toBe(dayStartMs(seededAt) / 1000 + DAY / 2000);
  });

  test('minute granularity takes a time-of-day range and its query succeeds', async () => {
    await page.getByLabel('Granularity').selectOption('minute');
    const from = page.getByLabel(/^From \(UTC/);
    expect(await from.getAttribute('type')).toBe('datetime-local');
    // The last hour, to the minute: within the 3 hours minute buckets allow.
    const span =
      Date.parse(`${await page.getByLabel(/^To \(UTC/).inputValue()}:00Z`) -
      Date.parse(`${await from.inputValue()}:00Z`);
    expect(span).toBe(3_600_000);
    await page.getByRole('button', { name: 'Run query' }).click();
    // The record of a minute before the suite started.
    await page.getByRole('heading', { name: 'Result: 1 rows' }).waitFor();
    expect(await page.locator('form.explorer [role="alert"]').count()).toBe(0);
    expect(Number(await page.locator('.chart [data-points]').getAttribute('data-points'))).toBe(60);
    await page.getByLabel('Granularity').selectOption('day');
    expect(await page.getByLabel('From (UTC day)').getAttribute('type')).toBe('date');
  });

  test("rankings list the seeded models, today's traffic included", async () => {
    await page.getByRole('link', { name: 'Rankings' }).click();
    await settled(page);
    const table = page.getByRole('region', { name: 'Models by tokens over the window' });
    await expect(table.textContent()).resolves.toContain('cohere/embed-v4.0');
    expect(Number(await page.locator('.chart [data-points]').getAttribute('data-points'))).toBeGreaterThan(0);
    // OpenAI small: 1,200 tokens today and 2,000 two days ago.
    const small = table.getByRole('row', { name: /openai\/text-embedding-3-small/ });
    await expect(small.textContent()).resolves.toContain('3,200');
    await expect(page.locator('main p.help').first().textContent()).resolves.toContain(
      `to ${isoDay(Date.now())} (today so far)`,
    );
  });

  test('on a fresh install (no rollup yet, traffic only today) the page says when the traffic will appear', async () => {
    const today = isoDay(Date.now());
    const fresh = {
      data: [],
      meta: {
        as_of: '1970-01-01T00:00:00.000Z',
        start_date: isoDay(Date.now() - 30 * DAY),
        end_date: today,
        version: 'v1',
      },
    };
    await page.route('**/api/v1/datasets/rankings-daily**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(fresh) }),
    );
    await page.getByLabel('Period').selectOption('week');
    await settled(page);
    await expect(page.locator('p.empty').textContent()).resolves.toMatch(
      /rollup has not run\. It runs every few minutes; requests then appear here/,
    );
    await page.unroute('**/api/v1/datasets/rankings-daily**');
    // The dataset's default window (completed days only): the page says where today's requests are.
    const yesterday = {
      data: [],
      meta: {
        as_of: new Date().toISOString(),
        start_date: isoDay(Date.now() - 31 * DAY),
        end_date: isoDay(Date.now() - DAY),
        version: 'v1',
      },
    };
    await page.route('**/api/v1/datasets/rankings-daily**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(yesterday) }),
    );
    await page.getByLabel('Include today so far (UTC)').uncheck();
    await settled(page);
    await expect(page.locator('p.empty').textContent()).resolves.toContain(
      `Today's requests (${today}) appear in this window after midnight UTC; tick "Include today so far" to see them now.`,
    );
    await page.unroute('**/api/v1/datasets/rankings-daily**');
    await page.getByLabel('Include today so far (UTC)').check();
    await page.getByLabel('Period').selectOption('day');
    await settled(page);
  });

  test('in the installation scope the Rankings page offers no today and says when a day is published', async () => {
    await page.route('**/dashboard/api/session', async (route) => {
      const real = await route.fetch();
      const body = (await real.json()) as { data: Record<string, unknown> };
      await route.fulfill({ response: real, json: { data: { ...body.data, rankings_scope: 'installation' } } });
    });
    const empty = {
      data: [],
      meta: {
        as_of: new Date().toISOString(),
        start_date: isoDay(Date.now() - 31 * DAY),
        end_date: isoDay(Date.now() - DAY),
        version: 'v1',
      },
    };
    let asked = '';
    await page.route('**/api/v1/datasets/rankings-daily**', (route) => {
      asked = route.request().url();
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(empty) });
    });
    await page.goto(`${base}/dashboard/rankings`);
    await settled(page);
    expect(await page.getByLabel('Include today so far (UTC)').count()).toBe(0);
    expect(asked).not.toContain('end_date=');
    await expect(page.locator('p.empty').textContent()).resolves.toContain(
      'Installation-wide rankings publish each completed UTC day once, an hour after it ends',
    );
    await page.unroute('**/api/v1/datasets/rankings-daily**');
    await page.unroute('**/dashboard/api/session');
    await page.goto(`${base}/dashboard/`);
    await settled(page);
  });

  test('a page whose request fails says so plainly, and an empty answer shows the empty state', async () => {
    await page.route('**/api/v1/datasets/rankings-daily**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 503, message: 'Service Unavailable' } }),
      }),
    );
    await page.getByRole('link', { name: 'Overview' }).click();
    await settled(page);
    await page.getByRole('link', { name: 'Rankings' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(
      /^Could not load this page: .*Service Unavailable/,
    );
    await page.unroute('**/api/v1/datasets/rankings-daily**');
    await page.route('**/api/v1/datasets/rankings-daily**', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          data: [],
          meta: { as_of: null, start_date: '2026-10-27', end_date: '2026-11-25', version: 'v1' },
        }),
      }),
    );
    await page.getByRole('link', { name: 'Overview' }).click();
    await settled(page);
    await page.getByRole('link', { name: 'Rankings' }).click();
    await settled(page);
    await page.getByText(/^No model in this window yet: the rankings rollup has not run\./).waitFor();
    await page.unroute('**/api/v1/datasets/rankings-daily**');
  });

  test('the pages are reachable from the keyboard, and the browser keeps no copy of the management key', async () => {
    await page.goto(`${base}/dashboard/`);
    await settled(page);
    let focused = '';
    for (let i = 0; i < 15 && focused !== 'Providers'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate<string>('document.activeElement ? document.activeElement.textContent.trim() : ""');
    }
    expect(focused).toBe('Providers');
    await page.keyboard.press('Enter');
    await expect(page.locator('main h1').textContent()).resolves.toBe('Providers');
    const stored = await page.evaluate<string>(
      'JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])',
    );
    expect(stored).toBe('[[],[],""]'); // nothing in storage; the session cookie is HttpOnly
    expect(await page.content()).not.toContain(gw.mgmtKey);
  });

  test("after real traffic, a provider's card shows its requests and latency of the last 24 h", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(gw.app)
        .post('/api/v1/embeddings')
        .set('Authorization', bearer(inferenceKey))
        .send({ model: 'openai/text-embedding-3-small', input: `hello ${i}` });
      expect(res.status).toBe(200);
    }
    // Cohere's upstream fails: its attempt is counted, and no usage is recorded.
    fakes.cohere.setSticky({ status: 500 });
    const failed = await request(gw.app)
      .post('/api/v1/embeddings')
      .set('Authorization', bearer(inferenceKey))
      .send({ model: 'cohere/embed-v4.0', input: 'x' });
    expect(failed.status).toBe(502);
    await gw.deps.recorder.flush();
    // A fresh load: the previous test left the browser on this page.
    await page.goto(`${base}/dashboard/providers`);
    await settled(page);
    const openai = providerCard(page, 'openai');
    // The seeded record of a minute ago and the three requests just sent.
    expect(await cardFigure(openai, 'Requests, 24 h')).toBe('4');
    expect(await cardFigure(openai, 'p50 latency')).toMatch(/^\d[\d,]* ms$/);
    expect(await cardFigure(openai, 'p99 latency')).toMatch(/^\d[\d,]* ms$/);
    const row = page
      .getByRole('region', { name: /Endpoints of .*OpenAI/i })
      .getByRole('row', { name: /openai\/text-embedding-3-small/ });
    // The 4 attempts the fallback runner reported at the start (1 failed) and the 3 requests.
    await expect(row.textContent()).resolves.toMatch(/closed \(healthy\).*14\.3 % of 7/);
  });

  test('providers are listed failing first; those without a key grey and last, never "healthy"', async () => {
    const cards = page.locator('main section.card');
    const order = await cardSlugs(cards);
    // Cohere failed 1 of 1 attempt, OpenAI 1 of 7; every other provider of the catalog has no key.
    expect(order.slice(0, 2)).toEqual(['cohere', 'openai']);
    expect(order).toHaveLength(gw.deps.routing.catalog.providers.length);
    expect(order.length).toBeGreaterThan(2);
    const unconfigured = cards.filter({ hasText: 'no key set' });
    expect(await cardSlugs(unconfigured)).toEqual(order.slice(2));
    await expect(unconfigured.first().textContent()).resolves.not.toContain('healthy');
    const state = unconfigured.first().locator('.state').first();
    expect(await state.textContent()).toBe('not configured (no key)');
    expect(await css(state, 'color')).toBe('rgb(74, 84, 96)'); // --muted
    expect(await css(unconfigured.first(), 'backgroundColor')).toBe('rgb(245, 247, 249)'); // --panel
    const configuredState = providerCard(page, 'openai').locator('.state').first();
    expect(await css(configuredState, 'color')).toBe('rgb(22, 101, 52)'); // --ok
  });

  test('axe-core finds no serious or critical violation on any page', async () => {
    const found: Record<string, unknown> = {};
    for (const p of PAGES) {
      await page.goto(`${base}/dashboard${p}`);
      await settled(page);
      const v = await seriousViolations(page);
      if (v.length > 0) found[p] = v;
    }
    expect(found).toEqual({});
  });

  test('at 360 px wide no page scrolls sideways', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    const wide: Record<string, number> = {};
    for (const p of PAGES) {
      await page.goto(`${base}/dashboard${p}`);
      await settled(page);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > 360) wide[p] = width;
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(wide).toEqual({});
  });

  test('at 360 px a key label is never broken inside', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${base}/dashboard/keys`);
    await settled(page);
    const labels = page.locator('header .who code, [role="region"][aria-label^="Keys, newest first"] td code');
    expect(await labels.count()).toBeGreaterThanOrEqual(3); // the header's and two keys'
    // One line box per label: a label broken inside has two.
    const lines = await labels.evaluateAll((els) => els.map((el) => `${el.textContent} ${el.getClientRects().length}`));
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(lines.every((l) => l.endsWith(' 1'))).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });

  test("the README's screenshots can be taken (npm run screenshots writes them to docs/images)", async () => {
    const dir = process.env.SCREENSHOT_DIR
      ? path.resolve(PROJECT_ROOT, process.env.SCREENSHOT_DIR)
      : tempDir('sy-shots-');
    const shots: string[] = [];
    const shot = async (name: string) => {
      const file = path.join(dir, `dashboard-${name}.png`);
      await page.screenshot({ path: file });
      shots.push(file);
    };
    await page.goto(`${base}/dashboard/`);
    await settled(page);
    await shot('overview');
    await page.goto(`${base}/dashboard/usage`);
    await settled(page);
    await page.getByLabel('From (UTC day)').fill(isoDay(Date.now() - 20 * DAY));
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('heading', { name: 'Result: 5 rows' }).waitFor();
    await shot('usage');
    await page.goto(`${base}/dashboard/workspaces`);
    await settled(page);
    await shot('workspaces');
    for (const file of shots) {
      const png = readFileSync(file);
      expect({ file, signature: png.subarray(1, 4).toString('latin1'), big: png.length > 10_000 }).toEqual({
        file,
        signature: 'PNG',
        big: true,
      });
    }
  });

  test('signs out: the sign-in form returns and the old session cookie is refused', async () => {
    const cookies = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ');
    expect(cookies).not.toBe('');
    await page.goto(`${base}/dashboard/`);
    await settled(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Management key').waitFor();
    expect(await page.evaluate<number>(`fetch('/api/v1/keys').then((r) => r.status)`)).toBe(401);
    const replayed = await request(gw.app).get('/api/v1/keys').set('Cookie', cookies);
    expect(replayed.status).toBe(401);
    const session = await request(gw.app).get('/dashboard/api/session').set('Cookie', cookies);
    expect(session.status).toBe(401);
    const violations = await seriousViolations(page);
    expect(violations).toEqual([]);
  });

  test('no Content-Security-Policy violation and no script error was reported', () => {
    expect(consoleLines.filter((l) => /Content Security Policy|Refused to|pageerror/i.test(l))).toEqual([]);
  });
});

/**
 * Five usage records (two keys, three models, two providers) over the last 12 days: $0.212, and
 * each on a UTC day of its own for its model at any time of day (so the CSV has five rows); and
 * one of $0.0000024 forty days ago, for sub-cent axis labels.
 */
/** The seeded usage: how long ago, whose, and what; spend figures on the pages are checked against it. */
/** How long ago the one sub-cent record was: outside every window the other checks use. */
const TINY_AGO = 40 * DAY;
/** Providers as usage records name them: by display name, as `GET /generation` and analytics answer. */
const SEED = [
  {
    ago: 60_000,
    key: 'alpha',
    model: 'openai/text-embedding-3-small',
    provider: 'OpenAI',
    costUsd: 0.012,
    latencyMs: 120,
    tokensPrompt: 1200,
  },
  {
    ago: 2 * DAY,
    key: 'alpha',
    model: 'openai/text-embedding-3-small',
    provider: 'OpenAI',
    costUsd: 0.02,
    latencyMs: 180,
    tokensPrompt: 2000,
  },
  {
    ago: 3 * DAY,
    key: 'beta',
    model: 'cohere/embed-v4.0',
    provider: 'Cohere',
    costUsd: 0.05,
    latencyMs: 300,
    tokensPrompt: 5000,
  },
  {
    ago: 5 * DAY,
    key: 'beta',
    model: 'cohere/embed-v4.0',
    provider: 'Cohere',
    costUsd: 0.03,
    latencyMs: 250,
    tokensPrompt: 3000,
  },
  {
    ago: 12 * DAY,
    key: 'alpha',
    model: 'openai/text-embedding-3-large',
    provider: 'OpenAI',
    costUsd: 0.1,
    latencyMs: 400,
    tokensPrompt: 8000,
  },
  {
    ago: TINY_AGO,
    key: 'beta',
    model: 'openai/text-embedding-3-small',
    provider: 'OpenAI',
    costUsd: 0.0000024,
    latencyMs: 90,
    tokensPrompt: 120,
  },
] as const;
const seededAt = Date.now();

/** Seeded spend since the start of this ISO week (UTC), as a weekly budget counts it. */
function seededThisWeek(): number {
  const d = new Date(seededAt);
  const weekStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
  return SEED.filter((e) => seededAt - e.ago >= weekStart).reduce((sum, e) => sum + e.costUsd, 0);
}

async function seedUsage(gw: TestGateway, alpha: string, beta: string): Promise<void> {
  const ws = gw.defaultWorkspaceId;
  const hashes = { alpha, beta };
  await insertUsageEvents(
    gw.deps.db,
    SEED.map(({ ago, key, ...fields }) =>
      event(gw.orgId, ws, hashes[key], new Date(seededAt - ago).toISOString(), fields),
    ),
  );
}

/** Add a finished request's transferred bytes and its body's gzip size to `into`. */
async function measure(r: PwRequest, into: { transferred: number; gzip: number }): Promise<void> {
  const sizes = await r.sizes().catch(() => null);
  const response = await r.response().catch(() => null);
  const body = await response?.body().catch(() => null);
  if (sizes) into.transferred += sizes.responseHeadersSize + sizes.responseBodySize;
  if (body) into.gzip += gzipSync(body).length;
}

async function signInWith(page: Page, key: string): Promise<void> {
  const field = page.getByLabel('Management key');
  await field.fill(key);
  expect(await field.getAttribute('type')).toBe('password');
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function expectAlert(page: Page, pattern: RegExp): Promise<void> {
  const alert = page.locator('form [role="alert"]');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(pattern);
}

/** Wait until the page has its heading and nothing is loading any more. */
async function settled(page: Page): Promise<void> {
  await page.locator('main h1').waitFor();
  await page.locator('p.status').waitFor({ state: 'detached' });
  const failure = page.getByText(/^Could not load this page/);
  if ((await failure.count()) > 0) throw new Error(`${page.url()}: ${await failure.first().textContent()}`);
}

async function figure(page: Page, label: string): Promise<string | null> {
  return page
    .locator('.figure', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .textContent();
}

/** Pixels of the first chart's canvas in a saturated colour: the series (axes and grid are grey). */
function colouredPixels(page: Page): Promise<number> {
  return page.evaluate<number>(`(() => {
    const canvas = document.querySelector('.chart canvas');
    if (!canvas) return 0;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      const max = Math.max(data[i], data[i + 1], data[i + 2]);
      const min = Math.min(data[i], data[i + 1], data[i + 2]);
      if (data[i + 3] > 200 && max - min > 60) n++;
    }
    return n;
  })()`);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function dayStartMs(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/** The first chart's y labels (drawn on its canvas, kept on its element): each a "$" amount, no two the same. */
async function expectMoneyAxis(page: Page): Promise<void> {
  const box = page.locator('.chart [data-y-labels]').first();
  await box.waitFor();
  const labels = JSON.parse((await box.getAttribute('data-y-labels')) ?? '[]') as string[];
  expect(labels.length).toBeGreaterThan(1);
  for (const label of labels) expect(label).toMatch(/^\$\d[\d,]*\.\d{2,9}$/);
  expect(new Set(labels).size).toBe(labels.length);
}

/** The first chart's x scale [min, max] in Unix seconds, as it drew it (set once it has drawn). */
async function xScale(page: Page): Promise<[number, number]> {
  const box = page.locator('.chart [data-x-min]').first();
  await box.waitFor();
  return [Number(await box.getAttribute('data-x-min')), Number(await box.getAttribute('data-x-max'))];
}

/** Opaque pixels in the first chart canvas's three leftmost columns above the x axis: a y label cut by the edge. */
function leftEdgeInk(page: Page): Promise<number> {
  return page.evaluate<number>(`(() => {
    const canvas = document.querySelector('.chart canvas');
    const rows = canvas.height - 60;
    const data = canvas.getContext('2d').getImageData(0, 0, 3, rows).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 100) n++;
    return n;
  })()`);
}

/** A computed style property of the element `l` points at. */
function css(l: Locator, property: 'color' | 'backgroundColor'): Promise<string> {
  return l.evaluate((el, p) => el.ownerDocument.defaultView?.getComputedStyle(el)[p] ?? '', property);
}

/** The slug in each provider card's heading ("OpenAI (openai)"), in page order. */
async function cardSlugs(l: Locator): Promise<string[]> {
  const headings = await l.locator('h2').allTextContents();
  return headings.map((h) => /\(([^()]+)\)$/.exec(h)?.[1] ?? h);
}

/** The provider card whose heading names `slug`. */
function providerCard(page: Page, slug: string): Locator {
  return page.locator('main section.card', { has: page.locator('h2', { hasText: `(${slug})` }) });
}

/** A headline figure inside one provider card. */
function cardFigure(card: Locator, label: string): Promise<string | null> {
  return card
    .locator('.figure', { has: card.page().locator('dt', { hasText: new RegExp(`^${label}$`) }) })
    .locator('dd')
    .textContent();
}
