import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

// A collector for the tests: a real HTTP server on 127.0.0.1 that takes OTLP/HTTP JSON trace
// exports (POST /v1/traces, what @opentelemetry/exporter-trace-otlp-http sends) and keeps each
// span with its attributes flattened to plain values.

export type AttributeValue = string | number | boolean | null | AttributeValue[];

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  kind: number;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  scope: string;
  service: string | undefined;
  attributes: Record<string, AttributeValue>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function plainValue(v: OtlpValue): AttributeValue {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(plainValue);
  return null;
}

const attributesOf = (list: OtlpKeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, plainValue(kv.value)]));

/** The spans of one OTLP/HTTP JSON export request. */
export function decodeTraces(body: string): ReceivedSpan[] {
  const data = JSON.parse(body) as {
    resourceSpans?: {
      resource?: { attributes?: OtlpKeyValue[] };
      scopeSpans?: {
        scope?: { name?: string };
        spans?: {
          name: string;
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          kind?: number;
          status?: { code?: number };
          attributes?: OtlpKeyValue[];
        }[];
      }[];
    }[];
  };
  const out: ReceivedSpan[] = [];
  for (const rs of data.resourceSpans ?? []) {
    const service = attributesOf(rs.resource?.attributes)['service.name'];
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        out.push({
          name: span.name,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          kind: span.kind ?? 0,
          statusCode: span.status?.code ?? 0,
          scope: ss.scope?.name ?? '',
          service: typeof service === 'string' ? service : undefined,
          attributes: attributesOf(span.attributes),
        });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** The endpoint to configure (OTEL_EXPORTER_OTLP_ENDPOINT): traces go to `${url}/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(
  opts: { onSpans?: (spans: ReceivedSpan[]) => void } = {},
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        const body = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
        const received = decodeTraces(body);
        spans.push(...received);
        opts.onSpans?.(received);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
