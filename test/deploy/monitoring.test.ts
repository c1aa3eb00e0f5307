/**
 * Issue 45 item 2: the alerts and the Grafana dashboard shipped as kustomize Components
 * (`k8s/components/alerts`, `k8s/components/grafana-dashboard`). The PrometheusRule is valid
 * against the operator's CRD schema, passes `promtool check rules`, and its alerts fire (and stay
 * quiet) on synthetic series under `promtool test rules`; the dashboard type-checks against
 * Grafana's published schema (`@grafana/schema`) and has a sound layout; every metric the rules and
 * the dashboard query parses as PromQL and is one a live gateway exports; the overlay
 * docs/operations.md shows renders with `kubectl kustomize` and carries both.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import type { Dashboard, Panel, RowPanel } from '@grafana/schema';
import { createMetricsApp } from '../../src/app';
import { PROJECT_ROOT } from '../../src/paths';
import { bearer, createInferenceKey } from '../helpers/gateway';
import { tempDir } from '../helpers/temp-dir';
import { startGatewayHarness } from '../fakes/gateway-harness';
import { K8S_DIR, parseObjects, readObjects, type K8sObject } from './kustomize';
import { withTool } from './tools';
import { schemaProblems, typeProblems, unknownFieldProblems } from './schema';
import { exposedNames, readPromql } from './promql';

const ALERTS_DIR = path.join(K8S_DIR, 'components', 'alerts');
const DASHBOARD_DIR = path.join(K8S_DIR, 'components', 'grafana-dashboard');
const DASHBOARD_FILE = 'switchyard-dashboard.json';

const ruleObjects = readObjects(path.join(ALERTS_DIR, 'prometheusrule.yaml'));
const ruleSpec = ruleObjects[0]?.spec as IPrometheusRule['spec'];
const ruleGroups = ruleSpec.groups ?? [];
const alerts = ruleGroups.flatMap((g) => g.rules ?? []).filter((r) => r.alert !== undefined);
const dashboardText = readFileSync(path.join(DASHBOARD_DIR, DASHBOARD_FILE), 'utf8');
const dashboard = JSON.parse(dashboardText) as Dashboard;
const allPanels = (dashboard.panels ?? []).flatMap((p): Array<Panel | RowPanel> =>
  p.type === 'row' ? [p, ...((p as RowPanel).panels ?? [])] : [p],
);
const queryPanels = allPanels.filter((p): p is Panel => p.type !== 'row');

/**
 * Grafana's types use TypeScript enums, which a JSON string literal never satisfies: this maps each
 * string enum to the union of its values (numbers stay numbers), leaving every other check,
 * excess properties included, as the type declares.
 */
const AS_JSON = `type AsJson<T> = T extends string ? \`\${T}\` : T extends ReadonlyArray<infer U> ? Array<AsJson<U>> : T extends object ? { [K in keyof T]: AsJson<T[K]> } : T;`;

/** Every PromQL expression shipped, named for messages: the rules, the panels' targets, the variables' `label_values`. */
function shippedQueries(): Array<{ where: string; expr: string }> {
  const out = alerts.map((r) => ({ where: `alert ${r.alert}`, expr: String(r.expr) }));
  for (const p of queryPanels)
    for (const t of p.targets ?? []) out.push({ where: `panel "${p.title}" ${String(t.refId)}`, expr: String(t.expr) });
  for (const v of dashboard.templating?.list ?? []) {
    const query = typeof v.query === 'string' ? v.query : (v.query as { query?: string } | undefined)?.query;
    const selector = /^label_values\((.+),\s*\w+\)$/.exec(query ?? '')?.[1];
    if (selector) out.push({ where: `variable ${v.name}`, expr: selector });
  }
  return out;
}

describe('k8s/components: optional kustomize Components', () => {
  test('each is a Component listing exactly the files beside it', () => {
    for (const [dir, files] of [
      [ALERTS_DIR, ['prometheusrule.yaml']],
      [DASHBOARD_DIR, [DASHBOARD_FILE]],
    ] as const) {
      const k = parseYaml(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as {
        apiVersion: string;
        kind: string;
        resources?: string[];
        configMapGenerator?: Array<{ files: string[] }>;
      };
      expect({ dir: path.basename(dir), apiVersion: k.apiVersion, kind: k.kind }).toEqual({
        dir: path.basename(dir),
        apiVersion: 'kustomize.config.k8s.io/v1alpha1',
        kind: 'Component',
      });
      expect([...(k.resources ?? []), ...(k.configMapGenerator ?? []).flatMap((g) => g.files)]).toEqual(files);
    }
  });
});

describe('alerts: PrometheusRule', () => {
  test('is valid against the prometheus-operator CRD schema, with no unknown field', () => {
    expect(ruleObjects.map((o) => o.kind)).toEqual(['PrometheusRule']);
    expect(ruleObjects.flatMap(schemaProblems)).toEqual([]);
    expect(unknownFieldProblems(ruleObjects)).toEqual([]);
    const misspelt = structuredClone(ruleObjects[0]) as K8sObject & {
      spec: { groups: Array<{ rules: Array<Record<string, unknown>> }> };
    };
    const first = misspelt.spec.groups[0]?.rules[0] as Record<string, unknown>;
    first.exprr = first.expr;
    delete first.expr;
    expect(unknownFieldProblems([misspelt]).join()).toMatch(/exprr/);
  });

  test('has the alerts docs/operations.md lists, each with a severity, a summary, a description and a runbook line', () => {
    const names = alerts.map((r) => r.alert);
    expect(names).toEqual(
      expect.arrayContaining([
        'SwitchyardHighErrorRate',
        'SwitchyardUpstreamFailures',
        'SwitchyardBudgetRefusals',
        'SwitchyardUsageOutboxBacklog',
        'SwitchyardRedisDown',
        'SwitchyardPostgresDown',
        'SwitchyardCircuitOpen',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
    const docs = readFileSync(path.join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');
    for (const r of alerts) {
      expect({ alert: r.alert, documented: docs.includes(`\`${r.alert}\``) }).toEqual({
        alert: r.alert,
        documented: true,
      });
      expect({ alert: r.alert, severity: r.labels?.severity }).toEqual({
        alert: r.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
      });
      for (const a of ['summary', 'description', 'runbook'])
        expect({ alert: r.alert, a, text: (r.annotations?.[a] ?? '').length > 10 }).toEqual({
          alert: r.alert,
          a,
          text: true,
        });
    }
  });

  const [promtoolTest, checkTitle] = withTool('promtool', ['--version'], 'promtool check rules passes');
  promtoolTest(checkTitle, () => {
    const dir = tempDir('sy-rules-');
    writeFileSync(path.join(dir, 'rules.yaml'), toYaml(ruleSpec));
    const run = spawnSync('promtool', ['check', 'rules', path.join(dir, 'rules.yaml')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect({ status: run.status, out: `${run.stdout}${run.stderr}` }).toEqual({
      status: 0,
      out: expect.stringContaining(`SUCCESS: ${alerts.length} rules found`),
    });
  });

  const [unitTest, unitTitle] = withTool(
    'promtool',
    ['--version'],
    'promtool test rules: the alerts fire on synthetic series after their `for`, and stay quiet otherwise',
  );
  unitTest(unitTitle, () => {
    const dir = tempDir('sy-rules-');
    // Annotations are templates checked by `check rules`; the unit tests compare labels only.
    const bare = {
      groups: ruleGroups.map((g) => ({ ...g, rules: (g.rules ?? []).map(({ annotations: _annotations, ...r }) => r) })),
    };
    writeFileSync(path.join(dir, 'rules.yaml'), toYaml(bare));
    const http = (status: string, perMinute: number) => ({
      series: `switchyard_http_requests_total{namespace="sy",route="/api/v1/embeddings",method="POST",status_class="${status}"}`,
      values: `0+${perMinute}x40`,
    });
    const cases = {
      rule_files: ['rules.yaml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            http('2xx', 90),
            http('5xx', 10),
            { series: 'switchyard_dependency_up{namespace="sy",dependency="redis"}', values: '1 1 0x10' },
            { series: 'switchyard_dependency_up{namespace="sy",dependency="database"}', values: '1x12' },
            {
              series: 'switchyard_circuit_state{namespace="sy",provider="deepinfra",model="baai/bge-m3"}',
              values: '0 2x10',
            },
            { series: 'switchyard_usage_queue_depth{namespace="sy",pod="a"}', values: '0+100x40' },
            { series: 'switchyard_usage_queue_depth{namespace="calm",pod="b"}', values: '900x40' },
          ],
          alert_rule_test: [
            { eval_time: '5m', alertname: 'SwitchyardHighErrorRate', exp_alerts: [] },
            {
              eval_time: '20m',
              alertname: 'SwitchyardHighErrorRate',
              exp_alerts: [{ exp_labels: { severity: 'critical', namespace: 'sy' } }],
            },
            { eval_time: '2m', alertname: 'SwitchyardRedisDown', exp_alerts: [] },
            {
              eval_time: '5m',
              alertname: 'SwitchyardRedisDown',
              exp_alerts: [{ exp_labels: { severity: 'critical', namespace: 'sy' } }],
            },
            { eval_time: '10m', alertname: 'SwitchyardPostgresDown', exp_alerts: [] },
            { eval_time: '2m', alertname: 'SwitchyardCircuitOpen', exp_alerts: [] },
            {
              eval_time: '5m',
              alertname: 'SwitchyardCircuitOpen',
              exp_alerts: [
                { exp_labels: { severity: 'warning', namespace: 'sy', provider: 'deepinfra', model: 'baai/bge-m3' } },
              ],
            },
            // Growing past 500 for 10 minutes fires; a large but steady backlog does not.
            {
              eval_time: '30m',
              alertname: 'SwitchyardUsageOutboxBacklog',
              exp_alerts: [{ exp_labels: { severity: 'warning', namespace: 'sy' } }],
            },
          ],
        },
      ],
    };
    writeFileSync(path.join(dir, 'tests.yaml'), toYaml(cases));
    const run = spawnSync('promtool', ['test', 'rules', 'tests.yaml'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    expect({ status: run.status, out: `${run.stdout}${run.stderr}` }).toEqual({
      status: 0,
      out: expect.stringContaining('SUCCESS'),
    });
  });
});

describe('dashboard: Grafana JSON', () => {
  test("type-checks against @grafana/schema (Dashboard, and each time series panel's options), with no unknown field", () => {
    const lines = [
      `import type { Dashboard } from '@grafana/schema';`,
      AS_JSON,
      `export const dashboard: AsJson<Dashboard> = ${dashboardText};`,
    ];
    const series = `import('@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen')`;
    queryPanels.forEach((p, i) => {
      if (p.type !== 'timeseries') return;
      lines.push(`export const options${i}: AsJson<${series}.Options> = ${JSON.stringify(p.options)};`);
      lines.push(
        `export const custom${i}: AsJson<Partial<${series}.FieldConfig>> = ${JSON.stringify(p.fieldConfig?.defaults.custom ?? {})};`,
      );
    });
    expect(typeProblems(lines.join('\n'))).toEqual([]);
    // The check is not vacuous: a misspelt field and a wrong type are caught.
    const check = (d: unknown) =>
      typeProblems(
        `import type { Dashboard } from '@grafana/schema';\n${AS_JSON}\nexport const d: AsJson<Dashboard> = ${JSON.stringify(d)};`,
      );
    expect(
      check({ ...dashboard, schemaVerison: 39 })
        .map((p) => p.message)
        .join(),
    ).toMatch(/schemaVerison/);
    expect(check({ ...dashboard, refresh: 30 })).not.toEqual([]);
    expect(check({ ...dashboard, graphTooltip: 'shared' })).not.toEqual([]);
  });

  test('structure: a current schemaVersion, a Prometheus data source variable, unique ids, panels on the grid without overlap, each with queries', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    const source = dashboard.templating?.list?.find((v) => v.type === 'datasource');
    expect(source).toMatchObject({ name: 'datasource', query: 'prometheus' });
    const ids = allPanels.map((p) => p.id);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const boxes = allPanels.map((p) => ({
      title: p.title,
      ...(p.gridPos as { x: number; y: number; w: number; h: number }),
    }));
    for (const b of boxes)
      expect({ title: b.title, fits: b.w > 0 && b.h > 0 && b.x >= 0 && b.x + b.w <= 24 && b.y >= 0 }).toEqual({
        title: b.title,
        fits: true,
      });
    const overlapping = boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
        .map((b) => `${a.title} / ${b.title}`),
    );
    expect(overlapping).toEqual([]);
    for (const p of queryPanels) {
      expect({ panel: p.title, datasource: p.datasource }).toEqual({
        panel: p.title,
        datasource: { type: 'prometheus', uid: '${datasource}' },
      });
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect({ panel: p.title, targets: refIds.length > 0, unique: new Set(refIds).size === refIds.length }).toEqual({
        panel: p.title,
        targets: true,
        unique: true,
      });
      for (const t of p.targets ?? [])
        expect({ panel: p.title, expr: typeof t.expr }).toEqual({ panel: p.title, expr: 'string' });
    }
  });

  test('its panels cover requests and errors by route, spend and tokens, upstream latency, cache savings, budget refusals and outbox lag', () => {
    const byPanel = queryPanels.map((p) => ({
      title: p.title,
      metrics: (p.targets ?? []).flatMap((t) => readPromql(String(t.expr)).metrics),
      exprs: (p.targets ?? []).map((t) => String(t.expr)).join(' '),
    }));
    const shows = (metric: string, by: RegExp = /.*/) =>
      byPanel.some((p) => p.metrics.includes(metric) && by.test(p.exprs));
    expect({
      requestsByRoute: shows('switchyard_http_requests_total', /by \(route/),
      errorsByRoute: shows('switchyard_http_requests_total', /status_class=~"4xx\|5xx"/),
      spend: shows('switchyard_embeddings_cost_usd_total', /by \(model, provider\)/),
      tokens: shows('switchyard_embeddings_tokens_total', /by \(model, provider\)/),
      upstreamLatency: shows('switchyard_upstream_request_duration_seconds_bucket', /histogram_quantile\(0\.99/),
      cacheSavings: shows('switchyard_embeddings_cache_saved_usd_total'),
      budgetRefusals: shows('switchyard_budget_refusals_total'),
      outboxLag: shows('switchyard_usage_queue_depth'),
    }).toEqual({
      requestsByRoute: true,
      errorsByRoute: true,
      spend: true,
      tokens: true,
      upstreamLatency: true,
      cacheSavings: true,
      budgetRefusals: true,
      outboxLag: true,
    });
  });
});

describe('queries against a live gateway', () => {
  test('every expression parses as PromQL, and every metric it selects is one a live /metrics scrape offers', async () => {
    const h = await startGatewayHarness({ overrides: { breaker: { failureThreshold: 1, cooldownMs: 60_000 } } });
    try {
      // Traffic so the labelled series exist: an answer, a fallback (and an open circuit), a budget refusal, a readiness check.
      expect((await h.post({ model: 'baai/bge-m3', input: 'a' })).status).toBe(200);
      h.fleet.fakes.deepinfra!.queue({ status: 500 });
      expect(
        (await h.post({ model: 'baai/bge-m3', input: 'b', provider: { order: ['deepinfra', 'together'] } })).status,
      ).toBe(200);
      const capped = await createInferenceKey(h.gw, { name: 'capped', limit: 0.000000001 });
      expect(
        (
          await request(h.gw.app)
            .post('/api/v1/embeddings')
            .set('Authorization', bearer(capped.secret))
            .send({ model: 'baai/bge-m3', input: 'c' })
        ).status,
      ).toBe(402);
      await request(h.gw.app).get('/readyz');
      const scrape = (await request(createMetricsApp(h.gw.deps)).get('/metrics').expect(200)).text;
      for (const series of [
        'switchyard_upstream_fallbacks_total{',
        'switchyard_budget_refusals_total{',
        'switchyard_circuit_state{',
        'switchyard_dependency_up{',
      ])
        expect(scrape).toContain(series);
      const exported = exposedNames(scrape);
      const problems = shippedQueries().flatMap(({ where, expr }) => {
        const read = readPromql(expr);
        return [
          ...read.problems.map((p) => `${where}: ${p}`),
          ...read.metrics.filter((m) => !exported.has(m)).map((m) => `${where}: ${m} is not exported`),
        ];
      });
      expect(problems).toEqual([]);
      // …and the check has teeth: a misspelt metric and a broken expression are reported.
      expect(readPromql('rate(switchyard_http_request_total[5m])').metrics.filter((m) => !exported.has(m))).toEqual([
        'switchyard_http_request_total',
      ]);
      expect(readPromql('sum(rate(switchyard_http_requests_total[5m])').problems).not.toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('rendering: the overlay docs/operations.md shows', () => {
  const [kubectlTest, title] = withTool(
    'kubectl',
    ['version', '--client'],
    'kubectl kustomize renders the base with both components: the rule, and the dashboard ConfigMap labelled for the Grafana sidecar',
  );
  kubectlTest(title, () => {
    const docs = readFileSync(path.join(PROJECT_ROOT, 'docs', 'operations.md'), 'utf8');
    const overlay = /```yaml\n# monitoring-overlay\/kustomization\.yaml\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(overlay).toBeDefined();
    const dir = tempDir('sy-overlay-');
    writeFileSync(
      path.join(dir, 'kustomization.yaml'),
      (overlay as string).replaceAll('../k8s', path.relative(dir, K8S_DIR)),
    );
    const withBoth = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: withBoth.status, stderr: withBoth.stderr }).toEqual({ status: 0, stderr: '' });
    const base = spawnSync('kubectl', ['kustomize', K8S_DIR], { encoding: 'utf8', timeout: 60_000 });
    expect(base.status).toBe(0);
    const objects = parseObjects(withBoth.stdout, 'kubectl kustomize (overlay)');
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;
    const added = objects.filter(
      (o) => !parseObjects(base.stdout, 'kubectl kustomize (base)').some((b) => key(b) === key(o)),
    );
    expect(added.map(key).sort()).toEqual(['ConfigMap/switchyard-grafana-dashboard', 'PrometheusRule/switchyard']);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
    for (const o of added)
      expect({ o: key(o), namespace: o.metadata.namespace }).toEqual({ o: key(o), namespace: 'switchyard' });
    const configMap = added.find((o) => o.kind === 'ConfigMap') as K8sObject & { data: Record<string, string> };
    expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(configMap.data[DASHBOARD_FILE]).toBe(dashboardText);
    expect((added.find((o) => o.kind === 'PrometheusRule') as K8sObject).spec).toEqual(ruleSpec);
  });
});
