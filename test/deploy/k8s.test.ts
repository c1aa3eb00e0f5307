/**
 * The `k8s/` kustomize base: every object is valid against the Kubernetes OpenAPI schemas (and
 * has no unknown field), the base lists every manifest, and the operational invariants hold:
 * replicas and rollout, probes on the ports the gateway listens on, shutdown within the grace
 * period, pod security, resources, pinned images, Prometheus scraping (one annotation-based path),
 * HPA, PDB, NetworkPolicy (in-cluster providers reachable), the migration Job. The Deployment's
 * environment, config file and mounted catalog are loaded with the gateway's own `loadConfig` and
 * `loadCatalog`, so a variable, port or catalog path the app does not read fails here. Where
 * `kubectl` is installed, its kustomize build is compared with the emulated one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { ENV_VARS, loadConfig, type Config } from '../../src/config';
import { PROJECT_ROOT } from '../../src/paths';
import { USAGE } from '../../src/cli/run';
import { loadCatalog } from '../../src/catalog/load';
import { ADAPTER_NAMES } from '../../src/providers/adapter-names';
import {
  K8S_DIR,
  listManifestFiles,
  parseObjects,
  podSpecOf,
  podTemplateOf,
  readKustomization,
  readObjects,
  renderBase,
  type K8sObject,
} from './kustomize';
import { withTool } from './tools';
import { describeObject, schemaProblems, unknownFieldProblems } from './schema';
import { tempDir } from '../helpers/temp-dir';

const SECRET_TEMPLATE = 'secret.example.yaml';
const kustomization = readKustomization();
const objects = renderBase(kustomization);
const secretTemplate = readObjects(path.join(K8S_DIR, SECRET_TEMPLATE));

function the<T>(kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? `/${name}` : ''}, found ${found.length}`);
  return found[0] as unknown as T;
}

const deployment = the<IDeployment>('Deployment', 'switchyard');
const podSpec = deployment.spec?.template.spec as IPodSpec;
const gateway = podSpec.containers[0] as IContainer;
const secret = secretTemplate[0] as unknown as ISecret;
const secretData: Record<string, string> = { ...(secret.stringData ?? {}) };
const defaults = loadConfig({});
const workloads = objects.filter((o) => podSpecOf(o) !== undefined);

/** A container port by name or number. */
function containerPort(c: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

function probeTarget(c: IContainer, probe: IProbe | undefined): { path?: string; port?: number } {
  return { path: probe?.httpGet?.path, port: containerPort(c, probe?.httpGet?.port) };
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  return (
    selector !== undefined &&
    Object.keys(selector).length > 0 &&
    Object.entries(selector).every(([k, v]) => labels?.[k] === v)
  );
}

/** Environment variable names the gateway reads, decided by `src/config.ts` and the provider catalog. */
const providerEnvNames = new Set(
  (
    parseYaml(readFileSync(path.join(PROJECT_ROOT, 'config', 'providers.yaml'), 'utf8')) as {
      providers: Array<{ slug: string }>;
    }
  ).providers.map((p) => p.slug.toUpperCase().replace(/[^A-Z0-9]/g, '_')),
);
function isReadByGateway(name: string): boolean {
  if (name === 'SWITCHYARD_CONFIG') return true;
  if (ENV_VARS.some((v) => v.name === name || (v.secret && `${v.name}_FILE` === name))) return true;
  const m = /^([A-Z0-9_]+?)_(BASE_URL|API_KEY|API_KEY_FILE)$/.exec(name);
  return m !== null && providerEnvNames.has(m[1] as string);
}

/** A file a ConfigMap-backed volume shows in the pod: which ConfigMap and key it comes from. */
interface MountedFile {
  configMap: string;
  key: string;
}

/**
 * The files of a `configMap` volume, or of a `projected` volume of ConfigMaps, by path relative
 * to the mount (`items` honoured; without them every key of the ConfigMap is a file).
 */
function configMapVolumeFiles(volume: IVolume): Map<string, MountedFile> {
  const sources = volume.configMap
    ? [volume.configMap]
    : (volume.projected?.sources ?? []).flatMap((s) => (s.configMap ? [s.configMap] : []));
  const files = new Map<string, MountedFile>();
  for (const source of sources) {
    const name = source.name as string;
    const keys =
      source.items ?? Object.keys(the<IConfigMap>('ConfigMap', name).data ?? {}).map((key) => ({ key, path: key }));
    for (const { key, path: rel } of keys) {
      expect({ path: rel, twice: files.has(rel) }).toEqual({ path: rel, twice: false });
      files.set(rel, { configMap: name, key });
    }
  }
  return files;
}

/** The ConfigMap file a container (the gateway's by default) sees at `file`, or undefined when no such volume is mounted there. */
function mountedFile(
  file: string,
  container: IContainer = gateway,
  pod: IPodSpec = podSpec,
): (MountedFile & { readOnly: boolean }) | undefined {
  const mount = (container.volumeMounts ?? [])
    .filter((m) => file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  if (!mount || !volume || mount.subPath) return undefined;
  const found = configMapVolumeFiles(volume).get(file.slice(mount.mountPath.replace(/\/$/, '').length + 1));
  return found && { ...found, readOnly: mount.readOnly === true };
}

/** A ConfigMap's data as kustomize generates it, with `edit` applied (to try a change an SRE would make). */
type ConfigMapEdit = (configMap: string, data: Record<string, string>) => Record<string, string>;

/**
 * The gateway container's environment as the kubelet would build it from the Secret template,
 * with files mounted from ConfigMaps written to a temporary directory (paths rewritten).
 */
function gatewayEnvironment(edit: ConfigMapEdit = (_name, data) => data): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const from of gateway.envFrom ?? []) {
    expect(from.secretRef?.name).toBe(secret.metadata?.name);
    Object.assign(env, secretData);
  }
  for (const e of gateway.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      expect(ref.name).toBe(secret.metadata?.name);
      if (!ref.optional) expect(Object.keys(secretData)).toContain(ref.key);
      env[e.name] = secretData[ref.key];
    } else {
      env[e.name] = e.value;
    }
  }
  const tmp = tempDir('sy-k8s-');
  for (const [name, value] of Object.entries(env)) {
    if (!value?.startsWith('/')) continue;
    const mounted = mountedFile(value);
    if (!mounted) continue;
    const data = edit(mounted.configMap, { ...(the<IConfigMap>('ConfigMap', mounted.configMap).data ?? {}) });
    expect(Object.keys(data)).toContain(mounted.key);
    const file = path.join(tmp, value);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, data[mounted.key] ?? '');
    env[name] = file;
  }
  return env;
}

/** Every `annotations` map in an object, with where it is (`metadata`, `spec.template.metadata`, …). */
function annotationMaps(o: unknown, at: string[] = []): Array<{ at: string; annotations: Record<string, string> }> {
  if (o === null || typeof o !== 'object') return [];
  return Object.entries(o as Record<string, unknown>).flatMap(([k, v]) =>
    k === 'annotations' && v !== null && typeof v === 'object'
      ? [{ at: at.join('.'), annotations: v as Record<string, string> }]
      : annotationMaps(v, [...at, k]),
  );
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** A Service DNS name (`name.namespace.svc`, `….svc.cluster.local`), which only pods in the cluster answer. */
function isClusterService(host: string): boolean {
  return /\.svc(\.cluster\.local)?\.?$/.test(host);
}

/** Whether the NetworkPolicy lets the gateway pods open a TCP connection to `host:port`. */
function egressAllows(np: INetworkPolicy, host: string, port: number): boolean {
  if (isLoopback(host)) return true; // loopback never leaves the pod
  return (np.spec?.egress ?? []).some((rule) => {
    const portOk =
      (rule.ports ?? []).length === 0 ||
      (rule.ports ?? []).some((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP');
    if (!portOk) return false;
    if (!rule.to || rule.to.length === 0) return true; // any destination
    // A namespaceSelector / podSelector peer selects pods in the cluster, reached through a Service name.
    return (
      isClusterService(host) &&
      rule.to.some(
        (peer) =>
          peer.ipBlock === undefined && (peer.namespaceSelector !== undefined || peer.podSelector !== undefined),
      )
    );
  });
}

/** `host` and port of a provider's base URL. */
function endpointOf(baseUrl: string): { host: string; port: number } {
  const url = new URL(baseUrl);
  return { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

describe('k8s/ kustomize base', () => {
  test('kustomization.yaml lists every manifest file, and never the Secret template', () => {
    const listed = [
      ...(kustomization.resources ?? []),
      ...(kustomization.configMapGenerator ?? []).flatMap((g) => g.files ?? []),
    ];
    // components/ holds optional kustomize Components (alerts, dashboard), checked in monitoring.test.ts.
    const files = listManifestFiles().filter(
      (f) => f !== 'kustomization.yaml' && f !== SECRET_TEMPLATE && !f.startsWith('components/'),
    );
    expect([...listed].sort()).toEqual(files);
    expect(listed).not.toContain(SECRET_TEMPLATE);
    expect(new Set(listed).size).toBe(listed.length);
  });

  test('every object, and the Secret template, is valid against the Kubernetes OpenAPI schemas', () => {
    const all = [...objects, ...secretTemplate];
    expect(all.flatMap(schemaProblems)).toEqual([]);
    expect(unknownFieldProblems(all)).toEqual([]);
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining([
        'ConfigMap',
        'Deployment',
        'HorizontalPodAutoscaler',
        'Job',
        'Namespace',
        'NetworkPolicy',
        'PodDisruptionBudget',
        'Service',
        'ServiceMonitor',
      ]),
    );
  });

  test('the validators catch a wrong type, a missing field and a misspelt one', () => {
    const wrongType = structuredClone(deployment) as unknown as K8sObject & { spec: { replicas: unknown } };
    wrongType.spec.replicas = '3';
    expect(schemaProblems(wrongType).join()).toMatch(/replicas must be integer/);
    const missing = structuredClone(the<K8sObject>('ServiceMonitor')) as K8sObject & { spec: Record<string, unknown> };
    delete missing.spec.selector;
    expect(schemaProblems(missing).join()).toMatch(/selector/);
    const misspelt = structuredClone(deployment) as unknown as K8sObject;
    const c = (misspelt as unknown as IDeployment).spec?.template.spec?.containers[0] as unknown as Record<
      string,
      unknown
    >;
    c.readinesProbe = c.readinessProbe;
    expect(schemaProblems(misspelt)).toEqual([]); // the OpenAPI schema lets unknown fields through…
    expect(unknownFieldProblems([misspelt]).join()).toMatch(/Deployment\/switchyard: .*readinesProbe/); // …this does not
    expect(schemaProblems({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'x' } }).join()).toMatch(
      /no schema/,
    );
  });

  test('everything lands in the namespace the base creates', () => {
    const ns = the<K8sObject>('Namespace');
    expect(ns.metadata.name).toBe(kustomization.namespace);
    for (const o of objects)
      if (o.kind !== 'Namespace')
        expect({ o: describeObject(o), ns: o.metadata.namespace }).toEqual({
          o: describeObject(o),
          ns: ns.metadata.name,
        });
    expect(secret.metadata?.namespace).toBe(ns.metadata.name);
  });

  test('Deployment: 3 replicas, rolling update that never drops below them, spread over nodes', () => {
    const spec = deployment.spec;
    expect(spec?.replicas).toBe(3);
    expect(spec?.strategy?.type).toBe('RollingUpdate');
    expect(['0', '0%', 0]).toContain(spec?.strategy?.rollingUpdate?.maxUnavailable);
    expect(spec?.strategy?.rollingUpdate?.maxSurge).not.toEqual(0);
    expect(matches(spec?.selector.matchLabels, spec?.template.metadata?.labels)).toBe(true);
    const byNode = podSpec.topologySpreadConstraints?.find((t) => t.topologyKey === 'kubernetes.io/hostname');
    expect(byNode).toBeDefined();
    expect(byNode?.maxSkew).toBe(1);
    expect(matches(byNode?.labelSelector?.matchLabels, spec?.template.metadata?.labels)).toBe(true);
  });

  test('ports: the containers listen where config/default.yaml says, as the Dockerfile exposes', () => {
    expect(containerPort(gateway, 'http')).toBe(defaults.server.port);
    expect(containerPort(gateway, 'metrics')).toBe(defaults.server.metricsPort);
    expect(gateway.ports?.map((p) => p.containerPort).sort()).toEqual(
      [defaults.server.port, defaults.server.metricsPort].sort(),
    );
  });

  test("environment: the Deployment env and its config file load with the gateway's loadConfig", () => {
    const env = gatewayEnvironment();
    const unknown = Object.keys(env).filter((name) => !isReadByGateway(name));
    expect(unknown).toEqual([]);
    let config: Config | undefined;
    expect(() => {
      config = loadConfig(env);
    }).not.toThrow();
    // Shared Postgres and Redis: no embedded database on the read-only root filesystem, and
    // limits shared by every replica.
    expect(config?.database.url).toMatch(/^postgres/);
    expect(config?.redis.url).toMatch(/^rediss?:/);
    expect(config?.server.port).toBe(containerPort(gateway, 'http'));
    expect(config?.server.metricsPort).toBe(containerPort(gateway, 'metrics'));
    expect(config?.server.host).toBe('0.0.0.0');
  });

  test('probes: readiness on /readyz and liveness on /healthz, on the API port', () => {
    expect(probeTarget(gateway, gateway.readinessProbe)).toEqual({ path: '/readyz', port: defaults.server.port });
    expect(probeTarget(gateway, gateway.livenessProbe)).toEqual({ path: '/healthz', port: defaults.server.port });
    if (gateway.startupProbe)
      expect(probeTarget(gateway, gateway.startupProbe)).toEqual({ path: '/healthz', port: defaults.server.port });
    // The readiness check waits up to 2 s for each dependency; the probe must wait longer.
    expect(gateway.readinessProbe?.timeoutSeconds ?? 1).toBeGreaterThan(2);
  });

  test('shutdown: terminationGracePeriodSeconds exceeds preStop plus the configured drain and final flush', () => {
    const config = loadConfig(gatewayEnvironment());
    const preStop = gateway.lifecycle?.preStop;
    const cmd = preStop?.exec?.command;
    const preStopSeconds = cmd ? (cmd[0] === 'sleep' ? Number(cmd[1]) : NaN) : 0;
    expect(Number.isFinite(preStopSeconds)).toBe(true);
    const grace = podSpec.terminationGracePeriodSeconds ?? 30;
    // After the drain, closing flushes pending usage for up to shutdownTimeoutMs again
    // (src/usage/recorder.ts), then closes the pools: leave those at least 5 s.
    const shutdownMs = preStopSeconds * 1000 + 2 * config.server.shutdownTimeoutMs + 5000;
    expect(grace * 1000).toBeGreaterThanOrEqual(shutdownMs);
  });

  describe.each(workloads.map((o) => [describeObject(o), o] as const))('%s', (_name, workload) => {
    const pod = podSpecOf(workload) as IPodSpec;
    const containers = [...(pod.initContainers ?? []), ...pod.containers];

    test('runs as non-root, read-only, without privilege escalation or capabilities', () => {
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(pod.securityContext?.runAsUser).not.toBe(0);
      expect(pod.securityContext?.seccompProfile?.type).toBe('RuntimeDefault');
      expect(pod.hostNetwork ?? false).toBe(false);
      for (const c of containers) {
        const sc = c.securityContext;
        expect({
          c: c.name,
          readOnlyRootFilesystem: sc?.readOnlyRootFilesystem,
          allowPrivilegeEscalation: sc?.allowPrivilegeEscalation,
          privileged: sc?.privileged ?? false,
        }).toEqual({
          c: c.name,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
        });
        expect(sc?.runAsUser).not.toBe(0);
        expect(sc?.capabilities?.drop).toContain('ALL');
        expect(sc?.capabilities?.add ?? []).toEqual([]);
        // The only writable place is an emptyDir at /tmp.
        const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
      }
    });

    test('every container has CPU and memory requests and limits', () => {
      for (const c of containers) {
        for (const kind of ['requests', 'limits'] as const) {
          expect({
            c: c.name,
            kind,
            cpu: c.resources?.[kind]?.cpu !== undefined,
            memory: c.resources?.[kind]?.memory !== undefined,
          }).toEqual({ c: c.name, kind, cpu: true, memory: true });
        }
      }
    });

    test("images are pinned (a tag other than latest, or a digest), the same as the gateway's", () => {
      for (const c of containers) {
        const image = c.image ?? '';
        expect(image).toMatch(/(@sha256:[0-9a-f]{64}|:[\w][\w.-]{0,127})$/);
        expect(image).not.toMatch(/:latest(@|$)/);
        expect(image).toBe(gateway.image);
        // The image's ENTRYPOINT (tini) must stay: `args` only, never `command`.
        expect(c.command).toBeUndefined();
      }
    });

    test('service account token not mounted; secrets come from the one Secret', () => {
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of containers) {
        for (const e of c.env ?? []) {
          expect(isReadByGateway(e.name)).toBe(true);
          const ref = e.valueFrom?.secretKeyRef;
          if (ref)
            expect({ name: ref.name, known: ref.optional === true || ref.key in secretData }).toEqual({
              name: secret.metadata?.name,
              known: true,
            });
        }
      }
      if (workload.kind === 'CronJob') expect(workload.spec).toMatchObject({ concurrencyPolicy: 'Forbid' });
    });
  });

  test("Services route to the gateway pods' named ports", () => {
    const labels = deployment.spec?.template.metadata?.labels;
    const api = the<IService>('Service', 'switchyard');
    expect(matches(api.spec?.selector, labels)).toBe(true);
    expect(api.spec?.ports?.map((p) => containerPort(gateway, p.targetPort))).toEqual([defaults.server.port]);
    const metrics = the<IService>('Service', 'switchyard-metrics');
    expect(matches(metrics.spec?.selector, labels)).toBe(true);
    expect(metrics.spec?.ports?.map((p) => containerPort(gateway, p.targetPort))).toEqual([
      defaults.server.metricsPort,
    ]);
  });

  test('Prometheus: scrape annotations on the pods, and a ServiceMonitor on the metrics Service', () => {
    const annotations = deployment.spec?.template.metadata?.annotations;
    expect(annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(defaults.server.metricsPort),
      'prometheus.io/path': '/metrics',
    });
    const monitor = the<IServiceMonitor>('ServiceMonitor');
    const metrics = the<IService>('Service', 'switchyard-metrics');
    expect(matches(monitor.spec.selector.matchLabels, metrics.metadata?.labels)).toBe(true);
    expect(matches(monitor.spec.selector.matchLabels, the<IService>('Service', 'switchyard').metadata?.labels)).toBe(
      false,
    );
    const endpoint = monitor.spec.endpoints?.[0];
    expect(endpoint?.path ?? '/metrics').toBe('/metrics');
    expect(metrics.spec?.ports?.map((p) => p.name)).toContain(endpoint?.port);
  });

  test('Prometheus: only the pod template carries prometheus.io/* annotations (no double scrape through the Services)', () => {
    const annotated = objects.flatMap((o) =>
      annotationMaps(o)
        .filter((a) => Object.keys(a.annotations).some((k) => k.startsWith('prometheus.io/')))
        .map((a) => `${describeObject(o)} ${a.at}`),
    );
    expect(annotated).toEqual(['Deployment/switchyard spec.template.metadata']);
    // The ServiceMonitor finds the metrics Service by labels alone.
    expect(the<IService>('Service', 'switchyard-metrics').metadata?.labels).toMatchObject(
      the<IServiceMonitor>('ServiceMonitor').spec.selector.matchLabels ?? {},
    );
  });

  test('HPA (autoscaling/v2) scales the Deployment on CPU, never below its replicas', () => {
    const hpa = the<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpa.spec?.minReplicas).toBe(3);
    expect(hpa.spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata?.name,
    });
    expect(hpa.spec?.minReplicas).toBe(deployment.spec?.replicas);
    expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 0);
    expect(
      hpa.spec?.metrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.target
        .averageUtilization,
    ).toBeGreaterThan(0);
    expect(gateway.resources?.requests?.cpu).toBeDefined(); // utilisation is relative to the request
  });

  test('PDB covers the gateway pods and lets one go at a time', () => {
    const pdb = the<IPodDisruptionBudget>('PodDisruptionBudget');
    expect(matches(pdb.spec?.selector?.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(true);
    const replicas = deployment.spec?.replicas ?? 0;
    if (pdb.spec?.maxUnavailable !== undefined) expect(pdb.spec.maxUnavailable).toBe(1);
    else expect(Number(pdb.spec?.minAvailable)).toBeLessThan(replicas);
  });

  test('NetworkPolicy admits the API and metrics ports and lets pods reach DNS, Postgres, Redis, HTTPS', () => {
    const np = the<INetworkPolicy>('NetworkPolicy');
    expect(matches(np.spec?.podSelector.matchLabels, deployment.spec?.template.metadata?.labels)).toBe(true);
    expect(np.spec?.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
    const ingressPorts = (np.spec?.ingress ?? []).flatMap((r) => (r.ports ?? []).map((p) => p.port));
    expect(ingressPorts).toEqual(expect.arrayContaining([defaults.server.port, defaults.server.metricsPort]));
    const egressPorts = (np.spec?.egress ?? [])
      .filter((r) => r.to === undefined)
      .flatMap((r) => (r.ports ?? []).map((p) => p.port));
    const dbPort = Number(new URL(secretData.DATABASE_URL as string).port || 5432);
    const redisPort = Number(new URL(secretData.REDIS_URL as string).port || 6379);
    expect(egressPorts).toEqual(expect.arrayContaining([53, dbPort, redisPort, 443]));
    for (const w of workloads)
      expect({
        w: describeObject(w),
        selected: matches(np.spec?.podSelector.matchLabels, podTemplateOf(w)?.metadata?.labels),
      }).toEqual({ w: describeObject(w), selected: true });
  });

  test('NetworkPolicy lets the gateway reach every provider of the mounted catalog, and local servers in the cluster', () => {
    const np = the<INetworkPolicy>('NetworkPolicy');
    const catalog = parseYaml(the<IConfigMap>('ConfigMap', 'switchyard-catalog').data?.['providers.yaml'] ?? '') as {
      providers: Array<{ slug: string; base_url: string }>;
    };
    for (const p of catalog.providers) {
      const { host, port } = endpointOf(p.base_url);
      expect({ provider: p.slug, host, port, allowed: egressAllows(np, host, port) }).toEqual({
        provider: p.slug,
        host,
        port,
        allowed: true,
      });
    }
    // Local embedding servers as Services in the cluster, on their usual pod ports (README examples).
    for (const url of [
      'http://tei.ml.svc.cluster.local/v1',
      'http://vllm.ml.svc:8000/v1',
      'http://tei.ml.svc:8080/v1',
      'http://ollama.ollama.svc:11434/v1',
    ]) {
      const { host, port } = endpointOf(url);
      expect({ url, allowed: egressAllows(np, host, port) }).toEqual({ url, allowed: true });
    }
    // …but plain HTTP leaves the cluster only where a rule says so: not by default.
    for (const url of ['http://embeddings.example.com/v1', 'http://embeddings.example.com:8000/v1']) {
      const { host, port } = endpointOf(url);
      expect({ url, allowed: egressAllows(np, host, port) }).toEqual({ url, allowed: false });
    }
  });

  test('catalog: ConfigMap switchyard-catalog is mounted read-only and named by SWITCHYARD_MODELS_FILE / SWITCHYARD_CHAT_MODELS_FILE / SWITCHYARD_PROVIDERS_FILE', () => {
    const env = Object.fromEntries((gateway.env ?? []).map((e) => [e.name, e.value]));
    expect(mountedFile(env.SWITCHYARD_MODELS_FILE ?? '')).toEqual({
      configMap: 'switchyard-catalog',
      key: 'models.yaml',
      readOnly: true,
    });
    expect(mountedFile(env.SWITCHYARD_CHAT_MODELS_FILE ?? '')).toEqual({
      configMap: 'switchyard-catalog',
      key: 'chat-models.yaml',
      readOnly: true,
    });
    expect(mountedFile(env.SWITCHYARD_PROVIDERS_FILE ?? '')).toEqual({
      configMap: 'switchyard-catalog',
      key: 'providers.yaml',
      readOnly: true,
    });
    expect(mountedFile(env.SWITCHYARD_CONFIG ?? '')).toEqual({
      configMap: 'switchyard-config',
      key: 'switchyard.yaml',
      readOnly: true,
    });
    // Generated, so that an edit changes the name (hash suffix) and rolls the Deployment.
    expect(kustomization.configMapGenerator?.map((g) => g.name)).toEqual(
      expect.arrayContaining(['switchyard-config', 'switchyard-catalog']),
    );
  });

  test("the rankings rollup CronJob reads the gateway's switchyard.yaml, so it publishes with the same scope and privacy settings", () => {
    const pod = podSpecOf(the<K8sObject>('CronJob', 'switchyard-rankings-rollup')) as IPodSpec;
    const rollup = pod.containers[0] as IContainer;
    const env = Object.fromEntries((rollup.env ?? []).map((e) => [e.name, e.value]));
    expect(mountedFile(env.SWITCHYARD_CONFIG ?? '', rollup, pod)).toEqual({
      configMap: 'switchyard-config',
      key: 'switchyard.yaml',
      readOnly: true,
    });
  });

  test('catalog: k8s/config/models.yaml, chat-models.yaml and providers.yaml are byte-for-byte copies of config/ (cp config/models.yaml config/chat-models.yaml config/providers.yaml k8s/config/)', () => {
    for (const file of ['models.yaml', 'chat-models.yaml', 'providers.yaml']) {
      const image = readFileSync(path.join(PROJECT_ROOT, 'config', file));
      const k8s = readFileSync(path.join(K8S_DIR, 'config', file));
      expect({ file, equal: image.equals(k8s) }).toEqual({ file, equal: true });
    }
  });

  test('catalog: the mounted files load with loadConfig + loadCatalog, and a local provider added there is routed', () => {
    const adapters = ADAPTER_NAMES;
    const env = gatewayEnvironment();
    const config = loadConfig(env);
    expect(config.catalog.modelsFile).toBe(env.SWITCHYARD_MODELS_FILE);
    expect(config.catalog.chatModelsFile).toBe(env.SWITCHYARD_CHAT_MODELS_FILE);
    expect(config.catalog.providersFile).toBe(env.SWITCHYARD_PROVIDERS_FILE);
    const catalog = loadCatalog(config, adapters);
    const shipped = {
      models: ['models.yaml', 'chat-models.yaml'].flatMap(
        (f) =>
          (parseYaml(readFileSync(path.join(PROJECT_ROOT, 'config', f), 'utf8')) as { models: Array<{ id: string }> })
            .models,
      ),
    };
    expect(catalog.models.length).toBeGreaterThan(0);
    expect(catalog.models.every((m) => shipped.models.some((s) => s.id === m.id))).toBe(true);
    // What the README tells an SRE to do: append a keyless in-cluster TEI provider and a model on it.
    const withTei = gatewayEnvironment((name, data) =>
      name !== 'switchyard-catalog'
        ? data
        : {
            ...data,
            'providers.yaml': `${data['providers.yaml']}  - slug: tei\n    name: TEI (in cluster)\n    adapter: openai\n    base_url: http://tei.ml.svc.cluster.local/v1\n    api_key: null\n`,
            'models.yaml': data['models.yaml']?.replace(
              /^models:\n/m,
              'models:\n  - id: baai/bge-small-en-v1.5\n    name: "BAAI: bge-small-en-v1.5"\n    created: 1760000000\n    context_length: 512\n    endpoints:\n      - provider: tei\n        upstream_model: BAAI/bge-small-en-v1.5\n        pricing: { prompt: "0" }\n',
            ) as string,
          },
    );
    const local = loadCatalog(loadConfig(withTei), adapters).resolveEmbeddings('baai/bge-small-en-v1.5');
    expect(local.endpoints.map((e) => [e.provider.slug, e.provider.baseUrl])).toEqual([
      ['tei', 'http://tei.ml.svc.cluster.local/v1'],
    ]);
  });

  test('migration Job runs `switchyard migrate` once against the database, with the gateway image', () => {
    const job = the<IJob>('Job', 'switchyard-migrate');
    const c = job.spec?.template.spec?.containers[0] as IContainer;
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(c.args).toEqual(['node', pkg.bin.switchyard, 'migrate']);
    expect(USAGE).toMatch(/^\s+migrate\b/m);
    expect(c.image).toBe(gateway.image);
    expect(c.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual(
      gateway.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef,
    );
    expect(['Never', 'OnFailure']).toContain(job.spec?.template.spec?.restartPolicy);
    expect(job.spec?.backoffLimit).toBeGreaterThan(0);
    expect(job.spec?.activeDeadlineSeconds).toBeGreaterThan(0);
  });

  test('migration Job can run before the rest: `-l app.kubernetes.io/component=migration` selects it alone; Argo CD runs it PreSync', () => {
    const job = the<IJob>('Job', 'switchyard-migrate');
    const selected = objects
      .filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'migration')
      .map(describeObject);
    expect(selected).toEqual(['Job/switchyard-migrate']);
    expect(job.metadata?.annotations?.['argocd.argoproj.io/hook']).toBe('PreSync');
    // What it needs besides the Secret exists in the base (README: applied before it on install).
    expect(the<K8sObject>('ServiceAccount', job.spec?.template.spec?.serviceAccountName).kind).toBe('ServiceAccount');
    // Its pods are not gateway pods: no Service, PDB or HPA counts them.
    expect(matches(deployment.spec?.selector.matchLabels, job.spec?.template.metadata?.labels)).toBe(false);
  });

  // The real build (kubectl, which CI installs) must match the emulated one, hash suffixes aside,
  // and carry those suffixes into the references. A kubectl that fails to build it is a failure.
  const [kubectlTest, kubectlTitle] = withTool(
    'kubectl',
    ['version', '--client'],
    'kubectl kustomize builds the same objects, generated ConfigMaps hash-suffixed and referenced by that name',
  );
  kubectlTest(kubectlTitle, () => {
    const kubectl = spawnSync('kubectl', ['kustomize', K8S_DIR], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: kubectl.status, stderr: kubectl.stderr?.trim().slice(0, 500) }).toMatchObject({ status: 0 });
    let text = kubectl.stdout;
    for (const gen of kustomization.configMapGenerator ?? []) {
      const hashed = new RegExp(`\\b${gen.name}-[a-z0-9]{10}\\b`, 'g');
      const names = new Set(text.match(hashed) ?? []);
      expect({ generator: gen.name, names: names.size }).toEqual({ generator: gen.name, names: 1 });
      // The ConfigMap and every reference to it (the Deployment's volume) use the hashed name.
      expect(text.match(hashed)?.length).toBeGreaterThanOrEqual(2);
      text = text.replace(hashed, gen.name);
    }
    const real = parseObjects(text, 'kubectl kustomize');
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const byKey = (list: K8sObject[]) => Object.fromEntries(list.map((o) => [key(o), o]));
    expect(byKey(real)).toEqual(byKey(structuredClone(objects)));
  });

  test('Secret template: placeholders only, each key a variable the gateway reads', () => {
    expect(secret.kind).toBe('Secret');
    expect(secret.data).toBeUndefined();
    for (const [key, value] of Object.entries(secretData)) {
      expect({ key, read: isReadByGateway(key) }).toEqual({ key, read: true });
      expect({ key, placeholder: value === '' || value.includes('CHANGE_ME') }).toEqual({ key, placeholder: true });
    }
    expect(Object.keys(secretData)).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL']));
    expect([...providerEnvNames].every((p) => `${p}_API_KEY` in secretData)).toBe(true);
  });
});
