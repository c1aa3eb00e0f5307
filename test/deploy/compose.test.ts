/**
 * `compose.yaml` (issue 61 item 10): Switchyard built from the Dockerfile with PostgreSQL and Redis,
 * checked structurally with the `yaml` package on every machine: health checks, start order (the
 * gateway waits for healthy stores and a successful migration), the migration run as the k8s
 * migration Job runs it, connection URLs that name the compose services, a configuration the
 * gateway's own `loadConfig` reads, a key variable for every catalog provider, the ports of
 * config/default.yaml. Where Docker Compose is installed (`docker compose` or `docker-compose`;
 * rendering needs no Docker engine), `compose config` renders the file and the rendering is
 * compared with what the structural checks read. Without it the render test is skipped with the
 * reason, except under REQUIRE_SERVICES=1 (CI), where it runs and fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ENV_VARS, loadConfig, providerKeyVariable } from '../../src/config';
import { PROJECT_ROOT } from '../../src/paths';

const FILE = path.join(PROJECT_ROOT, 'compose.yaml');
const TEXT = readFileSync(FILE, 'utf8');

interface Service {
  build?: string | { context: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[]; interval?: string; start_period?: string };
  ports?: Array<string | { target: number; published: string | number; host_ip?: string }>;
  volumes?: Array<string | { source: string; target: string }>;
  stop_grace_period?: string;
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

/**
 * `${NAME:-default}` and `${NAME}` in the parsed file's strings, as Compose substitutes them (after
 * parsing, so an empty result is an empty string, not YAML's null) from an environment without them.
 */
function substitute(value: unknown): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_m, _name: string, fallback?: string) => fallback ?? '');
  if (Array.isArray(value)) return value.map(substitute);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v)]));
  return value;
}

const compose = substitute(parseYaml(TEXT, { merge: true })) as Compose;
const { services } = compose;
const svc = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`compose.yaml has no service ${name}`);
  return s;
};
const defaults = loadConfig({});

/** Seconds of a Compose duration (`20s`, `1m30s`). */
function seconds(duration: string | undefined): number {
  let total = 0;
  for (const [, n, unit] of (duration ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g))
    total += Number(n) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
  return total;
}

/** A TCP port mapping as `host_ip:published:target` (Compose v2 renders the short form as an object, v1 adds `/tcp`). */
function portOf(p: NonNullable<Service['ports']>[number]): string {
  if (typeof p !== 'string') return `${p.host_ip ?? ''}:${p.published}:${p.target}`;
  const parts = p.replace(/\/tcp$/, '').split(':');
  return parts.length === 2 ? `:${parts[0]}:${parts[1]}` : parts.join(':');
}

test('four services: the gateway and its migration from the Dockerfile, PostgreSQL and Redis', () => {
  expect(Object.keys(services).sort()).toEqual(['migrate', 'postgres', 'redis', 'switchyard']);
  for (const name of ['switchyard', 'migrate']) {
    const s = svc(name);
    expect({ name, build: s.build }).toEqual({ name, build: '.' });
    expect(existsSync(path.join(PROJECT_ROOT, 'Dockerfile'))).toBe(true);
  }
  // The image the k8s manifests run, built here once for both.
  const k8sImage = /image: (\S+)/.exec(readFileSync(path.join(PROJECT_ROOT, 'k8s', 'deployment.yaml'), 'utf8'))?.[1];
  expect(svc('switchyard').image).toBe(k8sImage);
  expect(svc('migrate').image).toBe(k8sImage);
  expect(svc('postgres').image).toMatch(/^postgres:\d+/);
  expect(svc('redis').image).toMatch(/^redis:\d+/);
});

test('every long-running service has a health check; the gateway starts after healthy stores and a successful migration', () => {
  for (const name of ['switchyard', 'postgres', 'redis'])
    expect({ name, test: svc(name).healthcheck?.test?.[0] }).toEqual({
      name,
      test: expect.stringMatching(/^CMD(-SHELL)?$/),
    });
  expect(svc('postgres').healthcheck?.test.join(' ')).toContain('pg_isready');
  expect(svc('redis').healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
  expect(svc('switchyard').healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${defaults.server.port}/healthz`);
  expect(svc('switchyard').depends_on).toEqual({
    postgres: { condition: 'service_healthy' },
    redis: { condition: 'service_healthy' },
    migrate: { condition: 'service_completed_successfully' },
  });
  expect(svc('migrate').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  // A one-off: never restarted once it has exited.
  expect(svc('migrate').restart).toBe('no');
  expect(svc('migrate').healthcheck).toBeUndefined();
});

test('the migration runs as the k8s migration Job runs it', () => {
  const job = parseYaml(readFileSync(path.join(PROJECT_ROOT, 'k8s', 'migration-job.yaml'), 'utf8')) as {
    spec: { template: { spec: { containers: Array<{ args: string[] }> } } };
  };
  expect(svc('migrate').command).toEqual(job.spec.template.spec.containers[0]!.args);
  expect(svc('migrate').command).toEqual(['node', 'dist/src/cli.js', 'migrate']);
});

test('DATABASE_URL and REDIS_URL name the compose services, with the database, user and password PostgreSQL is given', () => {
  const pg = svc('postgres').environment ?? {};
  for (const name of ['switchyard', 'migrate']) {
    const url = new URL(svc(name).environment?.DATABASE_URL ?? '');
    expect({
      name,
      host: url.hostname,
      port: url.port,
      user: url.username,
      password: url.password,
      db: url.pathname,
    }).toEqual({
      name,
      host: 'postgres',
      port: '5432',
      user: pg.POSTGRES_USER,
      password: pg.POSTGRES_PASSWORD,
      db: `/${pg.POSTGRES_DB}`,
    });
  }
  const redis = new URL(svc('switchyard').environment?.REDIS_URL ?? '');
  expect([redis.protocol, redis.hostname, redis.port]).toEqual(['redis:', 'redis', '6379']);
  // The password is the operator's to set, the same one in every place.
  expect(TEXT.match(/\$\{POSTGRES_PASSWORD:-switchyard\}/g)).toHaveLength(3);
});

test("the gateway's environment is read by loadConfig, and every catalog provider can be given its key", () => {
  const env = svc('switchyard').environment ?? {};
  const config = loadConfig({ ...env, OPENAI_API_KEY: 'sk-test' });
  expect(config.database.url).toBe(env.DATABASE_URL);
  expect(config.redis.url).toBe(env.REDIS_URL);
  expect(config.providers.OPENAI?.apiKey).toBe('sk-test');
  // Left empty, a variable is unset: no empty key and no empty bootstrap secret.
  expect(loadConfig(env).auth.bootstrapKey).toBeNull();
  const catalog = parseYaml(readFileSync(path.join(PROJECT_ROOT, 'config', 'providers.yaml'), 'utf8')) as {
    providers: Array<{ slug: string }>;
  };
  const keyVariables = catalog.providers.map((p) => providerKeyVariable(p.slug));
  const known = new Set([...ENV_VARS.map((v) => v.name), ...keyVariables]);
  expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
  expect(keyVariables.filter((name) => !(name in env))).toEqual([]);
});

test('the API port is published, the metrics port on this machine only; the drain fits the stop grace period; data on volumes', () => {
  expect(svc('switchyard').ports?.map(portOf).sort()).toEqual(
    [
      `127.0.0.1:${defaults.server.metricsPort}:${defaults.server.metricsPort}`,
      `:${defaults.server.port}:${defaults.server.port}`,
    ].sort(),
  );
  expect(seconds(svc('switchyard').stop_grace_period)).toBeGreaterThan(defaults.server.shutdownTimeoutMs / 1000);
  expect(svc('postgres').volumes?.[0]).toBe('postgres-data:/var/lib/postgresql/data');
  expect(svc('redis').volumes?.[0]).toBe('redis-data:/data');
  expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(['postgres-data', 'redis-data']);
});

test("Redis runs as README's Deployment asks: AOF persistence, no eviction", () => {
  const args = (svc('redis').command ?? []).join(' ');
  expect(args).toContain('--appendonly yes');
  expect(args).toContain('--maxmemory-policy noeviction');
});

/** The Docker Compose command on this machine (v2 plugin or v1), or null. */
function composeCommand(): string[] | null {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    if (spawnSync(cmd[0] as string, [...cmd.slice(1), 'version'], { encoding: 'utf8' }).status === 0) return cmd;
  }
  return null;
}

const cmd = composeCommand();
const run = cmd !== null || process.env.REQUIRE_SERVICES === '1';
const title = 'docker compose config renders the file as the checks above read it';
(run ? test : test.skip)(
  run ? title : `${title} (skipped: Docker Compose is not installed; the structural checks above ran)`,
  () => {
    if (!cmd) throw new Error('REQUIRE_SERVICES=1 but neither `docker compose` nor `docker-compose` is installed');
    // Only PATH and HOME: none of the file's variables set, so their defaults apply, as above.
    const rendered = spawnSync(cmd[0] as string, [...cmd.slice(1), '-f', FILE, 'config'], {
      encoding: 'utf8',
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      timeout: 60_000,
    });
    expect({ status: rendered.status, stderr: rendered.stderr?.trim().slice(0, 500) }).toMatchObject({ status: 0 });
    const out = parseYaml(rendered.stdout) as Compose;
    expect(Object.keys(out.services).sort()).toEqual(Object.keys(services).sort());
    for (const [name, s] of Object.entries(services)) {
      const r = out.services[name] as Service;
      expect({
        name,
        image: r.image,
        command: r.command,
        environment: r.environment,
        healthcheck: r.healthcheck?.test,
      }).toEqual({
        name,
        image: s.image,
        command: s.command,
        environment: s.environment,
        healthcheck: s.healthcheck?.test,
      });
      expect({
        name,
        depends_on: Object.fromEntries(Object.entries(r.depends_on ?? {}).map(([k, v]) => [k, v.condition])),
      }).toEqual({
        name,
        depends_on: Object.fromEntries(Object.entries(s.depends_on ?? {}).map(([k, v]) => [k, v.condition])),
      });
      expect({ name, ports: (r.ports ?? []).map(portOf).sort() }).toEqual({
        name,
        ports: (s.ports ?? []).map(portOf).sort(),
      });
      if (s.build)
        expect(path.resolve(typeof r.build === 'string' ? r.build : (r.build?.context ?? ''))).toBe(PROJECT_ROOT);
    }
  },
);
