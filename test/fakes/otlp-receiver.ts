/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1: accepts `POST /v1/traces` in the OTLP JSON
 * encoding (what @opentelemetry/exporter-trace-otlp-http sends) and keeps every span it
 * received, flattened with its resource's and its own attributes as plain objects.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP JSON attribute value (`{stringValue}`, `{intValue}` as a string, …). */
type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: AnyValue }>;
  status?: { code?: number; message?: string };
}

interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: OtlpSpan[] }>;
  }>;
}

/** A received span; `kind` and `status` use OTLP's numbers (SERVER 2, CLIENT 3; status ERROR 2). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  statusCode: number;
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
  resource: Record<string, string | number | boolean | undefined>;
}

/** OTLP span kinds and status codes, as numbers on the wire. */
export const OTLP = { SERVER: 2, CLIENT: 3, INTERNAL: 1, STATUS_UNSET: 0, STATUS_ERROR: 2 } as const;

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>/v1/traces` */
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests received. */
  contentTypes: string[];
  /** Answer every export with this status (and keep nothing) while set; null accepts them. */
  refuseWith: number | null;
  close(): Promise<void>;
}

function plain(attributes: Array<{ key: string; value: AnyValue }> | undefined): ReceivedSpan['attributes'] {
  const out: ReceivedSpan['attributes'] = {};
  for (const { key, value } of attributes ?? []) {
    out[key] =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  }
  return out;
}

/** Start a receiver on an ephemeral loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    contentTypes: [],
    refuseWith: null,
    close: () => Promise.resolve(),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (receiver.refuseWith !== null)
        return void res.writeHead(receiver.refuseWith, { 'content-type': 'application/json' }).end('{}');
      receiver.contentTypes.push(req.headers['content-type'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest;
      for (const rs of body.resourceSpans ?? []) {
        const resource = plain(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            receiver.spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              statusCode: s.status?.code ?? 0,
              scope: ss.scope?.name ?? '',
              attributes: plain(s.attributes),
              resource,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}
