/**
 * Renders the `k8s/` kustomize base the way `kubectl apply -k k8s/` would, for the deployment
 * tests (CI need not have kubectl; where it has, k8s.test.ts compares this with `kubectl kustomize`).
 * Only the kustomization fields the base uses are emulated:
 * `resources` (files), `namespace`, `configMapGenerator` (files) and `images`. Any other field
 * fails loudly, so a new kustomize feature in the base cannot slip past the tests unrendered.
 * Generated ConfigMaps keep their plain name (kustomize appends a content hash and rewrites the
 * references to it consistently, so the plain name is what references must use).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { PROJECT_ROOT } from '../../src/paths';

/** The `k8s/` directory. */
export const K8S_DIR = path.join(PROJECT_ROOT, 'k8s');

/** Any Kubernetes object as parsed from YAML. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** The parts of `kustomization.yaml` the base may use. */
export interface Kustomization {
  apiVersion: string;
  kind: 'Kustomization';
  namespace?: string;
  resources?: string[];
  configMapGenerator?: Array<{ name: string; files?: string[]; literals?: string[] }>;
  images?: Array<{ name: string; newName?: string; newTag?: string; digest?: string }>;
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'namespace', 'resources', 'configMapGenerator', 'images']);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PriorityClass',
  'StorageClass',
]);

/** Read and check `k8s/kustomization.yaml`. */
export function readKustomization(): Kustomization {
  const k = parseYaml(readFileSync(path.join(K8S_DIR, 'kustomization.yaml'), 'utf8')) as Kustomization;
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0)
    throw new Error(`kustomization.yaml uses ${unsupported.join(', ')}: extend test/deploy/kustomize.ts to render it`);
  return k;
}

/** Every object in a YAML text (multi-document included, empty documents skipped); `source` names it in errors. */
export function parseObjects(text: string, source: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors[0]?.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null && o !== undefined);
}

/** Every object in one YAML file (multi-document files included, empty documents skipped). */
export function readObjects(file: string): K8sObject[] {
  return parseObjects(readFileSync(file, 'utf8'), file);
}

/** Every `*.yaml` / `*.yml` file under `k8s/`, relative to it, with `/` separators. */
export function listManifestFiles(dir = K8S_DIR, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listManifestFiles(full, `${prefix}${name}/`));
    else if (/\.ya?ml$/.test(name)) out.push(`${prefix}${name}`);
  }
  return out;
}

/** `o[k1][k2]…`, or undefined as soon as a step is not an object. */
export function dig(o: unknown, ...keys: string[]): unknown {
  let v = o;
  for (const k of keys) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** Kinds that run pods, with where their pod template lives. */
export const WORKLOAD_POD_TEMPLATE: Record<string, string[]> = {
  Deployment: ['spec', 'template'],
  StatefulSet: ['spec', 'template'],
  DaemonSet: ['spec', 'template'],
  Job: ['spec', 'template'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template'],
};

/** The pod template inside a workload, or undefined for other kinds. */
export function podTemplateOf(o: K8sObject): IPodTemplateSpec | undefined {
  const where = WORKLOAD_POD_TEMPLATE[o.kind];
  return where ? (dig(o, ...where) as IPodTemplateSpec | undefined) : undefined;
}

/** The pod spec inside a workload, or undefined for other kinds. */
export function podSpecOf(o: K8sObject): IPodSpec | undefined {
  return podTemplateOf(o)?.spec;
}

function splitImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withTag, digest] = image.split('@') as [string, string | undefined];
  const slash = withTag.lastIndexOf('/');
  const colon = withTag.lastIndexOf(':');
  if (colon > slash) return { name: withTag.slice(0, colon), tag: withTag.slice(colon + 1), digest };
  return { name: withTag, digest };
}

function applyImages(o: K8sObject, images: NonNullable<Kustomization['images']>): void {
  const pod = podSpecOf(o);
  if (!pod) return;
  for (const list of ['containers', 'initContainers'] as const) {
    for (const c of pod[list] ?? []) {
      if (!c.image) continue;
      const current = splitImage(c.image);
      const rule = images.find((i) => i.name === current.name);
      if (!rule) continue;
      const name = rule.newName ?? current.name;
      if (rule.digest) c.image = `${name}@${rule.digest}`;
      else
        c.image = `${name}${(rule.newTag ?? current.tag) ? `:${rule.newTag ?? current.tag}` : ''}${current.digest ? `@${current.digest}` : ''}`;
    }
  }
}

function generateConfigMap(gen: NonNullable<Kustomization['configMapGenerator']>[number]): K8sObject {
  const data: Record<string, string> = {};
  for (const entry of gen.files ?? []) {
    const [key, file] = entry.includes('=') ? (entry.split('=', 2) as [string, string]) : [path.basename(entry), entry];
    data[key] = readFileSync(path.join(K8S_DIR, file), 'utf8');
  }
  for (const literal of gen.literals ?? []) {
    const eq = literal.indexOf('=');
    data[literal.slice(0, eq)] = literal.slice(eq + 1);
  }
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: gen.name }, data };
}

/** The objects `kubectl apply -k k8s/` creates, in kustomization order, generated ones last. */
export function renderBase(k: Kustomization = readKustomization()): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const resource of k.resources ?? []) {
    const full = path.join(K8S_DIR, resource);
    if (!/\.ya?ml$/.test(resource) || !statSync(full).isFile())
      throw new Error(`resource ${resource}: only files are rendered here`);
    objects.push(...readObjects(full));
  }
  for (const gen of k.configMapGenerator ?? []) objects.push(generateConfigMap(gen));
  for (const o of objects) {
    if (k.namespace && !CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
    if (k.images) applyImages(o, k.images);
  }
  return objects;
}
