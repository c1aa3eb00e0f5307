/**
 * The `k8s/` kustomize base: every object is valid against the Kubernetes OpenAPI schemas (and
 * has no unknown field), the base lists every manifest, and the operational invariants hold:
 * replicas and rollout, probes on the ports the gateway listens on, shutdown within the grace
 * period, pod security, resources, pinned images, Prometheus scraping, HPA, PDB,
 * NetworkPolicy, the migration Job. The Deployment's environment and config file are loaded
 * with the gateway's own `loadConfig`, so a variable or port the app does not read fails here.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { ENV_VARS, loadConfig, type Config } from '../../src/config';
import { PROJECT_ROOT } from '../../src/paths';
import { USAGE } from '../../src/cli/run';
import { K8S_DIR, listManifestFiles, podSpecOf, podTemplateOf, readKustomization, readObjects, renderBase, type K8sObject } from './kustomize';
import { describeObject, schemaProblems, unknownFieldProblems } from './schema';

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
  return selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** Environment variable names the gateway reads, decided by `src/config.ts` and the provider catalog. */
const providerEnvNames = new Set(
  (parseYaml(readFileSync(path.join(PROJECT_ROOT, 'config', 'providers.yaml'), 'utf8')) as { providers: Array<{ slug: string }> }).providers.map((p) =>
    p.slug.toUpperCase().replace(/[^A-Z0-9]/g, '_'),
  ),
);
function isReadByGateway(name: string): boolean {
  if (name === 'SWITCHYARD_CONFIG') return true;
  if (ENV_VARS.some((v) => v.name === name || (v.secret && `${v.name}_FILE` === name))) return true;
  const m = /^([A-Z0-9_]+?)_(BASE_URL|API_KEY|API_KEY_FILE)$/.exec(name);
  return m !== null && providerEnvNames.has(m[1] as string);
}

/**
 * The gateway container's environment as the kubelet would build it from the Secret template,
 * with files mounted from ConfigMaps written to a temporary directory (paths rewritten).
 */
function gatewayEnvironment(): NodeJS.ProcessEnv {
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
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'sy-k8s-'));
  for (const [name, value] of Object.entries(env)) {
    const mount = gateway.volumeMounts?.find((m) => value?.startsWith(`${m.mountPath}/`));
    const volume = podSpec.volumes?.find((v) => v.name === mount?.name);
    if (!mount || !volume?.configMap) continue;
    const configMap = the<IConfigMap>('ConfigMap', volume.configMap.name);
    const key = (value as string).slice(mount.mountPath.length + 1);
    expect(Object.keys(configMap.data ?? {})).toContain(key);
    const file = path.join(tmp, key);
    writeFileSync(file, configMap.data?.[key] ?? '');
    env[name] = file;
  }
  return env;
}

describe('k8s/ kustomize base', () => {
  test('kustomization.yaml lists every manifest file, and never the Secret template', () => {
    const listed = [...(kustomization.resources ?? []), ...(kustomization.configMapGenerator ?? []).flatMap((g) => g.files ?? [])];
    const files = listManifestFiles().filter((f) => f !== 'kustomization.yaml' && f !== SECRET_TEMPLATE);
    expect([...listed].sort()).toEqual(files);
    expect(listed).not.toContain(SECRET_TEMPLATE);
    expect(new Set(listed).size).toBe(listed.length);
  });

  test('every object, and the Secret template, is valid against the Kubernetes OpenAPI schemas', () => {
    const all = [...objects, ...secretTemplate];
    expect(all.flatMap(schemaProblems)).toEqual([]);
    expect(unknownFieldProblems(all)).toEqual([]);
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining(['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'Job', 'Namespace', 'NetworkPolicy', 'PodDisruptionBudget', 'Service', 'ServiceMonitor']),
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
    const c = (misspelt as unknown as IDeployment).spec?.template.spec?.containers[0] as unknown as Record<string, unknown>;
    c.readinesProbe = c.readinessProbe;
    expect(schemaProblems(misspelt)).toEqual([]); // the OpenAPI schema lets unknown fields through…
    expect(unknownFieldProblems([misspelt]).join()).toMatch(/Deployment\/switchyard: .*readinesProbe/); // …this does not
    expect(schemaProblems({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'x' } }).join()).toMatch(/no schema/);
  });

  test('everything lands in the namespace the base creates', () => {
    const ns = the<K8sObject>('Namespace');
    expect(ns.metadata.name).toBe(kustomization.namespace);
    for (const o of objects) if (o.kind !== 'Namespace') expect({ o: describeObject(o), ns: o.metadata.namespace }).toEqual({ o: describeObject(o), ns: ns.metadata.name });
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
    expect(gateway.ports?.map((p) => p.containerPort).sort()).toEqual([defaults.server.port, defaults.server.metricsPort].sort());
  });

  test('environment: the Deployment env and its config file load with the gateway\'s loadConfig', () => {
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
    if (gateway.startupProbe) expect(probeTarget(gateway, gateway.startupProbe)).toEqual({ path: '/healthz', port: defaults.server.port });
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
        expect({ c: c.name, readOnlyRootFilesystem: sc?.readOnlyRootFilesystem, allowPrivilegeEscalation: sc?.allowPrivilegeEscalation, privileged: sc?.privileged ?? false }).toEqual({
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
          expect({ c: c.name, kind, cpu: c.resources?.[kind]?.cpu !== undefined, memory: c.resources?.[kind]?.memory !== undefined }).toEqual({ c: c.name, kind, cpu: true, memory: true });
        }
      }
    });

    test('images are pinned (a tag other than latest, or a digest), the same as the gateway\'s', () => {
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
          if (ref) expect({ name: ref.name, known: ref.optional === true || ref.key in secretData }).toEqual({ name: secret.metadata?.name, known: true });
        }
      }
      if (workload.kind === 'CronJob') expect(workload.spec).toMatchObject({ concurrencyPolicy: 'Forbid' });
    });
  });

  test('Services route to the gateway pods\' named ports', () => {
    const labels = deployment.spec?.template.metadata?.labels;
    const api = the<IService>('Service', 'switchyard');
    expect(matches(api.spec?.selector, labels)).toBe(true);
    expect(api.spec?.ports?.map((p) => containerPort(gateway, p.targetPort))).toEqual([defaults.server.port]);
    const metrics = the<IService>('Service', 'switchyard-metrics');
    expect(matches(metrics.spec?.selector, labels)).toBe(true);
    expect(metrics.spec?.ports?.map((p) => containerPort(gateway, p.targetPort))).toEqual([defaults.server.metricsPort]);
  });

  test('Prometheus: scrape annotations on the pods, and a ServiceMonitor on the metrics Service', () => {
    const annotations = deployment.spec?.template.metadata?.annotations;
    expect(annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(defaults.server.metricsPort), 'prometheus.io/path': '/metrics' });
    const monitor = the<IServiceMonitor>('ServiceMonitor');
    const metrics = the<IService>('Service', 'switchyard-metrics');
    expect(matches(monitor.spec.selector.matchLabels, metrics.metadata?.labels)).toBe(true);
    expect(matches(monitor.spec.selector.matchLabels, the<IService>('Service', 'switchyard').metadata?.labels)).toBe(false);
    const endpoint = monitor.spec.endpoints?.[0];
    expect(endpoint?.path ?? '/metrics').toBe('/metrics');
    expect(metrics.spec?.ports?.map((p) => p.name)).toContain(endpoint?.port);
  });

  test('HPA (autoscaling/v2) scales the Deployment on CPU, never below its replicas', () => {
    const hpa = the<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpa.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata?.name });
    expect(hpa.spec?.minReplicas).toBe(deployment.spec?.replicas);
    expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 0);
    expect(hpa.spec?.metrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu')?.resource?.target.averageUtilization).toBeGreaterThan(0);
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
    const egressPorts = (np.spec?.egress ?? []).filter((r) => r.to === undefined).flatMap((r) => (r.ports ?? []).map((p) => p.port));
    const dbPort = Number(new URL(secretData.DATABASE_URL as string).port || 5432);
    const redisPort = Number(new URL(secretData.REDIS_URL as string).port || 6379);
    expect(egressPorts).toEqual(expect.arrayContaining([53, dbPort, redisPort, 443]));
    for (const w of workloads) expect({ w: describeObject(w), selected: matches(np.spec?.podSelector.matchLabels, podTemplateOf(w)?.metadata?.labels) }).toEqual({ w: describeObject(w), selected: true });
  });

  test('migration Job runs `switchyard migrate` once against the database, with the gateway image', () => {
    const job = the<IJob>('Job', 'switchyard-migrate');
    const c = job.spec?.template.spec?.containers[0] as IContainer;
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
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
