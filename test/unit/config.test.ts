/**
 * Configuration: defaults, the per-deployment environment variables with type coercion, `_FILE`
 * secrets, a YAML override file for everything else, retired variables refused, and one error
 * listing every problem.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, ENV_VARS, RETIRED_ENV_VARS, loadConfig } from '../../src/config';
import { tempDir } from '../helpers/temp-dir';

describe('loadConfig', () => {
  test('defaults from config/default.yaml', () => {
    const c = loadConfig({});
    expect(c.server.port).toBe(8080);
    expect(c.server.metricsPort).toBe(9464);
    expect(c.database.url).toBeNull();
    expect(c.database.dataDir).toBe('./data');
    expect(c.redis.url).toBeNull();
    expect(c.rateLimit.failMode).toBe('open');
    expect(c.usage).toMatchObject({ addLingerMs: 0, answerAfterRecord: true });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.server)).toBe(true);
  });

  test('environment variables override and are coerced to their types', () => {
    const c = loadConfig({
      PORT: '9000',
      METRICS_PORT: '9001',
      DATABASE_URL: 'postgres://u@h/db',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SWITCHYARD_DATA_DIR: '/var/lib/sy',
      SWITCHYARD_BOOTSTRAP_KEY: 'sk-sy-v1-abcdefabcdefabcdef',
      LOG_LEVEL: 'debug',
      RANKINGS_SCOPE: 'installation',
      DASHBOARD_ENABLED: 'false',
      TRUST_PROXY: 'true',
      PORT_UNRELATED: 'x',
    });
    expect(c.server).toMatchObject({ port: 9000, metricsPort: 9001, trustProxy: true });
    expect(c.database).toMatchObject({ url: 'postgres://u@h/db', dataDir: '/var/lib/sy' });
    expect(c.redis.url).toBe('redis://127.0.0.1:6379');
    expect(c.auth.bootstrapKey).toBe('sk-sy-v1-abcdefabcdefabcdef');
    expect(c.log.level).toBe('debug');
    expect(c.rankings.scope).toBe('installation');
    expect(c.dashboard.enabled).toBe(false);
  });

  test('YAML-only settings from the SWITCHYARD_CONFIG file are coerced and validated like the rest', () => {
    const file = path.join(tempDir('sy-cfg-'), 'site.yaml');
    writeFileSync(file, 'rateLimit:\n  windowMs: 5000\n  limit: 42\n  failMode: closed\n');
    expect(loadConfig({ SWITCHYARD_CONFIG: file }).rateLimit).toEqual({
      windowMs: 5000,
      limit: 42,
      failMode: 'closed',
    });
  });

  describe('a variable earlier releases read is refused, naming the YAML setting that replaced it', () => {
    test('each retired variable, set alone, is one problem naming its setting and SWITCHYARD_CONFIG', () => {
      for (const v of RETIRED_ENV_VARS) {
        let error: unknown;
        try {
          loadConfig({ [v.name]: '1' });
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).problems).toEqual([
          `${v.name} is no longer read from the environment: set ${v.path.join('.')} in the YAML file named by SWITCHYARD_CONFIG (see config/default.yaml)`,
        ]);
      }
    });

    test('they are listed with the other problems; unset or empty they are ignored', () => {
      let error: unknown;
      try {
        loadConfig({ RATE_LIMIT_MAX: '1000', USAGE_ANSWER_AFTER_RECORD: 'false', PORT: 'eighty' });
      } catch (e) {
        error = e;
      }
      const problems = (error as ConfigError).problems.join('\n');
      expect((error as ConfigError).problems).toHaveLength(3);
      expect(problems).toContain('RATE_LIMIT_MAX is no longer read from the environment: set rateLimit.limit');
      expect(problems).toContain(
        'USAGE_ANSWER_AFTER_RECORD is no longer read from the environment: set usage.answerAfterRecord',
      );
      expect(problems).toContain('(PORT)');
      expect(loadConfig({ RATE_LIMIT_MAX: '' }).rateLimit.limit).toBe(600);
    });

    test('every retired variable names a real setting, and none is still read', () => {
      const defaults = loadConfig({}) as unknown as Record<string, Record<string, unknown>>;
      for (const v of RETIRED_ENV_VARS)
        expect({ [v.name]: v.path[1] in (defaults[v.path[0]] ?? {}) }).toEqual({ [v.name]: true });
      const read = new Set(ENV_VARS.map((v) => v.name));
      expect(RETIRED_ENV_VARS.filter((v) => read.has(v.name))).toEqual([]);
    });
  });

  test('internal tuning has no environment variable: it is set in the SWITCHYARD_CONFIG file', () => {
    const dir = tempDir('sy-cfg-');
    const file = path.join(dir, 'tuning.yaml');
    writeFileSync(file, 'usage:\n  addLingerMs: 5\nbudgets:\n  leaseRequests: 0\nlog:\n  flushMs: 0\n');
    const c = loadConfig({ SWITCHYARD_CONFIG: file, USAGE_ADD_LINGER_MS: '7', BUDGET_LEASE_REQUESTS: '9' });
    expect(c.usage.addLingerMs).toBe(5);
    expect(c.budgets.leaseRequests).toBe(0);
    expect(c.log.flushMs).toBe(0);
    expect(loadConfig({ USAGE_ADD_LINGER_MS: '7' }).usage.addLingerMs).toBe(0);
  });

  test('empty variables count as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).database.url).toBeNull();
  });

  test('secrets can come from <NAME>_FILE', () => {
    const dir = tempDir('sy-cfg-');
    writeFileSync(path.join(dir, 'db'), 'postgres://secret@h/db\n');
    expect(loadConfig({ DATABASE_URL_FILE: path.join(dir, 'db') }).database.url).toBe('postgres://secret@h/db');
    expect(() => loadConfig({ REDIS_URL_FILE: path.join(dir, 'missing') })).toThrow(/REDIS_URL_FILE: cannot read/);
  });

  test('SWITCHYARD_CONFIG names a YAML file layered over the defaults, below the environment', () => {
    const dir = tempDir('sy-cfg-');
    const file = path.join(dir, 'site.yaml');
    writeFileSync(file, 'server:\n  port: 7000\nlog:\n  level: warn\n');
    const c = loadConfig({ SWITCHYARD_CONFIG: file, LOG_LEVEL: 'debug' });
    expect(c.server.port).toBe(7000);
    expect(c.log.level).toBe('debug');
    expect(c.server.metricsPort).toBe(9464);
  });

  describe('layers merge at every depth: a later layer keeps what it does not set', () => {
    function fileWith(yaml: string): string {
      const file = path.join(tempDir('sy-cfg-'), 'site.yaml');
      writeFileSync(file, yaml);
      return file;
    }

    test('a provider base URL from the file and its key from the environment are both kept', () => {
      const file = fileWith('providers:\n  OPENAI:\n    baseUrl: http://llm.internal:8000/v1\n');
      const c = loadConfig({ SWITCHYARD_CONFIG: file, OPENAI_API_KEY: 'sk-from-env' });
      expect(c.providers.OPENAI).toEqual({ baseUrl: 'http://llm.internal:8000/v1', apiKey: 'sk-from-env' });
    });

    test('the reverse: a key from the file, the base URL from the environment', () => {
      const file = fileWith('providers:\n  MISTRAL:\n    apiKey: sk-from-file\n  OPENAI:\n    apiKey: sk-other\n');
      const c = loadConfig({ SWITCHYARD_CONFIG: file, MISTRAL_BASE_URL: 'http://127.0.0.1:9/v1' });
      expect(c.providers.MISTRAL).toEqual({ apiKey: 'sk-from-file', baseUrl: 'http://127.0.0.1:9/v1' });
      expect(c.providers.OPENAI).toEqual({ apiKey: 'sk-other' });
    });

    test('one leaf two levels down in a file keeps its siblings from the defaults', () => {
      const c = loadConfig({ SWITCHYARD_CONFIG: fileWith('analytics:\n  rateLimit:\n    limit: 5\n') });
      expect(c.analytics.rateLimit).toEqual({ windowMs: 60000, limit: 5 });
      expect(c.analytics.timeoutMs).toBe(10000);
    });

    test('a file leaf one level down keeps its siblings, and an environment variable still wins over it', () => {
      const file = fileWith('redis:\n  keyPrefix: "file:"\n  commandTimeoutMs: 50\nbudgets:\n  leaseMs: 50\n');
      const c = loadConfig({ SWITCHYARD_CONFIG: file, REDIS_KEY_PREFIX: 'env:' });
      expect(c.redis).toEqual({ ...loadConfig({}).redis, keyPrefix: 'env:', commandTimeoutMs: 50 });
      expect(c.budgets).toEqual({ ...loadConfig({}).budgets, leaseMs: 50 });
    });

    test('overrides merge the same way, below the leaf they set', () => {
      const c = loadConfig(
        { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
        { analytics: { rateLimit: { limit: 3 } }, providers: { OPENAI: { apiKey: 'k' } } },
      );
      expect(c.analytics.rateLimit).toEqual({ windowMs: 60000, limit: 3 });
      expect(c.providers.OPENAI).toEqual({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k' });
    });

    test('a list is replaced whole, not merged item by item', () => {
      const file = fileWith('redis:\n  sentinels: ["a:26379", "b:26379", "c:26379"]\n  sentinelName: main\n');
      const c = loadConfig({ SWITCHYARD_CONFIG: file, REDIS_SENTINELS: 'x:26379' });
      expect(c.redis.sentinels).toEqual(['x:26379']);
      expect(c.redis.sentinelName).toBe('main');
    });
  });

  test('every problem is listed in one error, naming the variable, or the setting alone for a YAML-only one', () => {
    const file = path.join(tempDir('sy-cfg-'), 'site.yaml');
    writeFileSync(file, 'rateLimit:\n  limit: -1\n  failMode: sideways\nupstream:\n  deadlineMs: -5\n');
    let error: unknown;
    try {
      loadConfig({
        SWITCHYARD_CONFIG: file,
        PORT: 'eighty',
        RANKINGS_SCOPE: 'everyone',
        DATABASE_URL: 'mysql://x',
        LOG_LEVEL: 'loud',
        DASHBOARD_ENABLED: 'maybe',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect((error as ConfigError).problems).toHaveLength(8);
    expect(problems).toContain('(PORT)');
    expect(problems).toContain('(RANKINGS_SCOPE)');
    expect(problems).toContain('(DATABASE_URL)');
    expect(problems).toContain('(LOG_LEVEL)');
    expect(problems).toContain('(DASHBOARD_ENABLED)');
    expect(problems).toMatch(/^config\.rateLimit\.limit must/m);
    expect(problems).toMatch(/^config\.rateLimit\.failMode must/m);
    expect(problems).toMatch(/^config\.upstream\.deadlineMs must/m);
  });

  test('a bad <SLUG>_BASE_URL is reported naming the variable', () => {
    let error: unknown;
    try {
      loadConfig({ OPENAI_BASE_URL: 'localhost:11434/v1', GOOGLE_AI_STUDIO_BASE_URL: 'ftp://x' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems.find((p) => p.startsWith('config.providers.OPENAI.baseUrl'))).toContain('(OPENAI_BASE_URL)');
    expect(problems.find((p) => p.startsWith('config.providers.GOOGLE_AI_STUDIO.baseUrl'))).toContain(
      '(GOOGLE_AI_STUDIO_BASE_URL)',
    );
  });

  test('timeouts and upload caps that contradict each other are refused, naming the settings', () => {
    const withFile = (yaml: string) => {
      const file = path.join(tempDir('sy-cfg-'), 'site.yaml');
      writeFileSync(file, yaml);
      return { SWITCHYARD_CONFIG: file };
    };
    let error: unknown;
    try {
      loadConfig(
        withFile(
          'server:\n  headersTimeoutMs: 30000\n  requestTimeoutMs: 20000\nfiles:\n  uploadDeadlineMs: 25000\n  maxBytes: 2000\n  spoolMaxBytes: 1000\n',
        ),
      );
    } catch (e) {
      error = e;
    }
    const problems = (error as ConfigError).problems.join('\n');
    expect((error as ConfigError).problems).toHaveLength(3);
    expect(problems).toContain(
      'config.server.requestTimeoutMs must be at least config.server.headersTimeoutMs: 20000 < 30000',
    );
    expect(problems).toContain(
      'config.files.uploadDeadlineMs must be below config.server.requestTimeoutMs: 25000 >= 20000',
    );
    expect(problems).toContain('config.files.spoolMaxBytes must be at least config.files.maxBytes: 1000 < 2000');
    // The per-organization cap no longer relates to the replica's storing slots (uploads are spooled first).
    expect(
      loadConfig(withFile('files:\n  maxConcurrentUploads: 1\n  maxConcurrentUploadsPerOrg: 3\n')).files
        .maxConcurrentUploadsPerOrg,
    ).toBe(3);
    expect(loadConfig(withFile('files:\n  spoolDir: /var/spool/sy\n  spoolMaxBytes: 104857600\n')).files).toMatchObject(
      { spoolDir: '/var/spool/sy', spoolMaxBytes: 104857600 },
    );
  });

  test('PORT equal to METRICS_PORT is a problem listed with the others', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: '9100', METRICS_PORT: '9100', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems } = error as ConfigError;
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toContain('(LOG_LEVEL)');
    expect(problems.join('\n')).toMatch(/\(METRICS_PORT\) must differ from .*\(PORT\): both are 9100/);
    // The same clash from a YAML file layered under the environment.
    const dir = tempDir('sy-cfg-');
    const file = path.join(dir, 'site.yaml');
    writeFileSync(file, 'server:\n  metricsPort: 8080\n');
    expect(() => loadConfig({ SWITCHYARD_CONFIG: file })).toThrow(/must differ/);
    // 0 asks each listener for its own free port, so two zeros are fine.
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).server).toMatchObject({ port: 0, metricsPort: 0 });
  });

  test('a malformed YAML override is reported, not thrown raw', () => {
    const dir = tempDir('sy-cfg-');
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'server: [unclosed\n');
    expect(() => loadConfig({ SWITCHYARD_CONFIG: file })).toThrow(ConfigError);
  });

  describe('OpenTelemetry tracing from the standard OTEL_* variables', () => {
    test('off by default: no endpoint', () => {
      expect(loadConfig({}).tracing).toEqual({
        endpoint: null,
        serviceName: 'switchyard',
        sampler: 'parentbased_always_on',
        samplerArg: 1,
      });
    });

    test('OTEL_EXPORTER_OTLP_ENDPOINT gets /v1/traces appended; the traces endpoint is used as it is and wins', () => {
      expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing.endpoint).toBe(
        'http://collector:4318/v1/traces',
      );
      expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/base' }).tracing.endpoint).toBe(
        'http://collector:4318/base/v1/traces',
      );
      const both = {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces',
      };
      expect(loadConfig(both).tracing.endpoint).toBe('https://b/otlp/traces');
    });

    test('OTEL_SDK_DISABLED=true turns it off whatever else is set; the name and sampler are read', () => {
      expect(
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing.endpoint,
      ).toBeNull();
      expect(
        loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_SDK_DISABLED: 'false' }).tracing.endpoint,
      ).toBe('http://a:4318/v1/traces');
      const c = loadConfig({
        OTEL_SERVICE_NAME: 'gw-eu',
        OTEL_TRACES_SAMPLER: 'traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      });
      expect(c.tracing).toMatchObject({ serviceName: 'gw-eu', sampler: 'traceidratio', samplerArg: 0.25 });
    });

    test('a bad sampler, ratio or endpoint, or a gRPC protocol, is a problem naming the variable', () => {
      let error: unknown;
      try {
        loadConfig({
          OTEL_TRACES_SAMPLER: 'jaeger_remote',
          OTEL_TRACES_SAMPLER_ARG: '2',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
          OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).problems.join('\n');
      expect(text).toContain('(OTEL_TRACES_SAMPLER)');
      expect(text).toContain('(OTEL_TRACES_SAMPLER_ARG)');
      expect(text).toContain('(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT)');
      expect(text).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: only OTLP over HTTP (http/json) is supported, not grpc');
    });
  });
});
