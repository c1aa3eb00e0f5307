/**
 * Where and how to call Amazon Bedrock's Converse API: `{base}/model/{modelId}/converse` or
 * `/converse-stream` (the model id, a regional inference profile such as
 * `us.anthropic.claude-…-v1:0`, path-encoded), a Bedrock API key as a bearer token when the
 * provider has one, else AWS Signature V4 ({@link authorize}). Bedrock names its errors in
 * `x-amzn-errortype`: `ServiceUnavailableException` is an overload (→ 529, fall back) and
 * `ModelNotReadyException` a model that cannot serve yet (→ 503 once no other provider answers).
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import type { UpstreamHeaders } from '../../transport/outcome';

/** The region a Bedrock provider calls and signs for when neither `<SLUG>_REGION`, YAML `region` nor `AWS_REGION` names one. */
export const DEFAULT_BEDROCK_REGION = 'us-east-1';

/** `{base}/model/{modelId}/converse(-stream)`. */
export function converseUrl(endpoint: Endpoint, stream: boolean): string {
  const model = encodeURIComponent(endpoint.upstreamModel);
  return `${endpoint.provider.baseUrl}/model/${model}/${stream ? 'converse-stream' : 'converse'}`;
}

/** JSON in; a stream answers `application/vnd.amazon.eventstream`. A Bedrock API key is a bearer token. */
export function headers(key: string | null, stream: boolean): Record<string, string> {
  const h: Record<string, string> = {
    'content-type': 'application/json',
    accept: stream ? 'application/vnd.amazon.eventstream' : 'application/json',
  };
  if (key) h.authorization = `Bearer ${key}`;
  return h;
}

/** The error's name: `x-amzn-errortype` (`ThrottlingException:http://…`), else the body's `__type`. */
export function errorTypeOf(bodyText: string, headers?: UpstreamHeaders): string {
  const header = headers?.['x-amzn-errortype'];
  const raw = (Array.isArray(header) ? header[0] : header) ?? /"__type"\s*:\s*"([^"]+)"/.exec(bodyText)?.[1] ?? '';
  const name = raw.split(':')[0]!;
  return name.slice(name.lastIndexOf('#') + 1);
}

/** `ServiceUnavailableException` (503): Bedrock is overloaded (→ 529, another provider is tried). */
export function isOverloaded(status: number, bodyText: string, headers?: UpstreamHeaders): boolean {
  return status === 503 || errorTypeOf(bodyText, headers) === 'ServiceUnavailableException';
}

/** `ModelNotReadyException` (sent as a 429): the model is not ready to serve, which no retry at once fixes (→ 503). */
export function isUnavailable(_status: number, bodyText: string, headers?: UpstreamHeaders): boolean {
  return errorTypeOf(bodyText, headers) === 'ModelNotReadyException';
}
