/**
 * Schema checks for Kubernetes objects, offline: the OpenAPI schemas of the API server as
 * compiled by `kubernetes-models` (and `@kubernetes-models/prometheus-operator` for the
 * ServiceMonitor and PrometheusRule CRDs), plus an unknown-field check. The OpenAPI schemas allow any extra field
 * (the API server would drop it, or reject it under kubectl's strict field validation), so a
 * misspelt `readinesProbe` passes them; the TypeScript interfaces of the same models catch it
 * through excess-property checking on a generated, never written, source file.
 */
import path from 'node:path';
import ts from 'typescript';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Service } from 'kubernetes-models/v1/Service';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { PROJECT_ROOT } from '../../src/paths';
import type { K8sObject } from './kustomize';

interface ModelEntry {
  /** The model class; `validate()` throws listing every schema violation. */
  model: new (data: never) => { validate(): void };
  /** Module and interface of its TypeScript type, for the unknown-field check. */
  module: string;
  type: string;
}

/** Every `apiVersion/kind` the manifests may use. Add a model here to ship a new kind. */
export const MODELS: Readonly<Record<string, ModelEntry>> = {
  'v1/Namespace': { model: Namespace, module: 'kubernetes-models/v1/Namespace', type: 'INamespace' },
  'v1/ServiceAccount': {
    model: ServiceAccount,
    module: 'kubernetes-models/v1/ServiceAccount',
    type: 'IServiceAccount',
  },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1/Service', type: 'IService' },
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1/ConfigMap', type: 'IConfigMap' },
  'v1/Secret': { model: Secret, module: 'kubernetes-models/v1/Secret', type: 'ISecret' },
  'apps/v1/Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1/Deployment', type: 'IDeployment' },
  'batch/v1/Job': { model: Job, module: 'kubernetes-models/batch/v1/Job', type: 'IJob' },
  'batch/v1/CronJob': { model: CronJob, module: 'kubernetes-models/batch/v1/CronJob', type: 'ICronJob' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    model: HorizontalPodAutoscaler,
    module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    type: 'IHorizontalPodAutoscaler',
  },
  'policy/v1/PodDisruptionBudget': {
    model: PodDisruptionBudget,
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    type: 'IPodDisruptionBudget',
  },
  'networking.k8s.io/v1/NetworkPolicy': {
    model: NetworkPolicy,
    module: 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
    type: 'INetworkPolicy',
  },
  'monitoring.coreos.com/v1/ServiceMonitor': {
    model: ServiceMonitor,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    type: 'IServiceMonitor',
  },
  'monitoring.coreos.com/v1/PrometheusRule': {
    model: PrometheusRule,
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule',
    type: 'IPrometheusRule',
  },
};

/** `Kind/name` for messages. */
export function describeObject(o: K8sObject): string {
  return `${o.kind}/${o.metadata?.name ?? '?'}`;
}

/** Schema violations of one object (empty when valid). */
export function schemaProblems(o: K8sObject): string[] {
  const entry = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!entry)
    return [`${describeObject(o)}: no schema for ${o.apiVersion} ${o.kind} (add its model to test/deploy/schema.ts)`];
  try {
    new entry.model(structuredClone(o) as never).validate();
    return [];
  } catch (err) {
    return [`${describeObject(o)}: ${(err as Error).message}`];
  }
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.Node16,
  moduleResolution: ts.ModuleResolutionKind.Node16,
};

/**
 * Type errors of a generated TypeScript module (`source`, never written to disk) against the
 * installed packages' types, each with the 0-based line it is on: excess-property checks make
 * this an unknown-field check for JSON written as an object literal.
 */
export function typeProblems(source: string): Array<{ line: number; message: string }> {
  const file = path.join(PROJECT_ROOT, 'test', 'deploy', '__generated__.ts');
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], COMPILER_OPTIONS, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ({
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0,
    message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
  }));
}

/**
 * Fields the Kubernetes API does not know, in any of `objects` (one TypeScript program for all).
 * Kinds without a model are left to {@link schemaProblems}.
 */
export function unknownFieldProblems(objects: K8sObject[]): string[] {
  const starts: Array<{ line: number; object: K8sObject }> = [];
  let source = '';
  objects.forEach((o, i) => {
    const entry = MODELS[`${o.apiVersion}/${o.kind}`];
    if (!entry) return;
    starts.push({ line: source.split('\n').length - 1, object: o });
    source += `export const m${i}: import(${JSON.stringify(entry.module)}).${entry.type} = ${JSON.stringify(o, null, 1)};\n`;
  });
  return typeProblems(source).map(({ line, message }) => {
    const owner = [...starts].reverse().find((s) => s.line <= line)?.object;
    return `${owner ? describeObject(owner) : '?'}: ${message}`;
  });
}
