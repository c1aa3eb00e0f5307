/**
 * Workspace classifiers: named dimensions whose ordered rules tag a sampled request's text
 * input (first match wins; no match = unset). The tags feed analytics' `classifier_dimensions`
 * and `classifier_filters`.
 * @module
 */
import type { Wire } from '../wire';

/** One rule: the tag value and what selects it (any keyword, case-insensitive, or any pattern). */
export interface ClassifierRule {
  value: string;
  keywords?: string[];
  patterns?: string[];
}

/** One named dimension and its ordered rules. */
export interface ClassifierDimension {
  name: string;
  rules: ClassifierRule[];
}

/** A stored classifier. */
export interface ClassifierRecord {
  id: string;
  orgId: string;
  workspaceId: string;
  name: string;
  active: boolean;
  sampleRate: number;
  dimensions: ClassifierDimension[];
  createdAt: Date;
  updatedAt: Date | null;
}

/** Fields an update sets (schema `classifiers.update.body`; the create body `classifiers.create.body` requires name and dimensions). */
export type ClassifierInput = Wire<'classifiers.update.body'>;

/** Bounds that keep one tenant's classifiers cheap to store and to run. */
export const CLASSIFIER_LIMITS = Object.freeze({
  perWorkspace: 20,
  dimensions: 10,
  rulesPerDimension: 50,
  matchersPerRule: 50,
  patternChars: 200,
  /** Text input examined per request. */
  inputBytes: 8192,
});

/** Wire form (snake_case). */
export function toWireClassifier(c: ClassifierRecord) {
  return {
    id: c.id,
    workspace_id: c.workspaceId,
    name: c.name,
    active: c.active,
    sample_rate: c.sampleRate,
    dimensions: c.dimensions,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt ? c.updatedAt.toISOString() : null,
  };
}
