/**
 * Headless Chromium for the dashboard's browser tests: Debian's `chromium` driven by
 * playwright-core (no browser download), a fresh profile per test file, the dashboard built
 * when its output is missing or older than its sources, and axe-core run inside the page.
 * A machine without Chromium reports the suite skipped with the reason; CI (REQUIRE_SERVICES=1)
 * fails instead.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../src/paths';

/** The Chromium executable (Debian's package), overridable for other machines. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the browser cases cannot run here, or null when they can. */
export const CHROMIUM_PROBLEM = existsSync(CHROMIUM_PATH)
  ? null
  : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;

if (CHROMIUM_PROBLEM) {
  if (process.env.REQUIRE_SERVICES === '1') {
    test('Chromium is available (REQUIRE_SERVICES=1)', () => {
      throw new Error(`REQUIRE_SERVICES=1 but ${CHROMIUM_PROBLEM}`);
    });
  } else {
    test.skip(`browser cases are skipped: ${CHROMIUM_PROBLEM}`, () => undefined);
  }
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with its own throw-away profile; `close()` ends it and removes the profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; page: Page; close: () => Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'switchyard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    timeout: 30000,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
  context.setDefaultTimeout(10000);
  context.setDefaultNavigationTimeout(15000);
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

const DASHBOARD = path.join(PROJECT_ROOT, 'dashboard');
const BUILT = path.join(PROJECT_ROOT, 'dist', 'dashboard', 'index.html');
/** Server files the dashboard imports (one rounding of money for API and UI): a change rebuilds too. */
const SHARED = [path.join(PROJECT_ROOT, 'src', 'catalog', 'usd.ts')];

function newestSource(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((newest, e) => Math.max(newest, statSync(path.join(e.parentPath, e.name)).mtimeMs), 0);
}

/** Build dist/dashboard with Vite when it is missing or older than dashboard/ or the server files it imports. */
export function ensureDashboardBuilt(): void {
  const newest = Math.max(newestSource(DASHBOARD), ...SHARED.map((f) => statSync(f).mtimeMs));
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newest) return;
  const vite = path.join(PROJECT_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(
    process.execPath,
    [vite, 'build', '--config', path.join(DASHBOARD, 'vite.config.ts'), '--logLevel', 'warn'],
    { cwd: PROJECT_ROOT, timeout: 120000, stdio: 'pipe' },
  );
}

/** One axe-core finding, reduced to what a failure message needs. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Run axe-core in `page` and return its serious and critical violations. The script is
 * evaluated through the DevTools protocol, not added as a `<script>` tag, so the page's CSP
 * stays in force (an inline script tag would be refused, or need the CSP bypassed).
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(AXE_SOURCE);
  const findings = await page.evaluate<AxeFinding[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`);
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
}
