import type { Attributes, Span, Tracer } from '@opentelemetry/api';

// Traces over OTLP/HTTP when an endpoint is configured, and nothing at all otherwise: the
// OpenTelemetry SDK is imported only by startTracing(), so without an endpoint no SDK module is
// loaded and every helper below is one property read and a call of the function it wraps.
//
// The state lives on globalThis because Next loads server modules once per bundle
// (instrumentation, each route); all of them must see the one tracer.

export interface TracingSettings {
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `<endpoint>/v1/traces`. */
  endpoint: string | undefined;
  serviceName: string;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS), e.g. a collector's token. */
  headers?: Record<string, string>;
}

interface Tracing {
  api: typeof import('@opentelemetry/api');
  tracer: Tracer;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const holder = globalThis as typeof globalThis & { __meetingNotesTracing?: Tracing };

export type SpanKindName = 'server' | 'client' | 'internal';

/** What code inside a span may do with it; a no-op when tracing is off. */
export interface SpanHandle {
  set(attributes: Attributes): void;
  /** Marks the span failed; `reason` is a short, value-free description. */
  fail(reason: string): void;
}

const NO_SPAN: SpanHandle = Object.freeze({ set() {}, fail() {} });

export function tracingEnabled(): boolean {
  return holder.__meetingNotesTracing !== undefined;
}

/**
 * Starts exporting spans, once per process; a no-op without an endpoint. Spans are batched and
 * sent over OTLP/HTTP as JSON.
 */
export async function startTracing(settings: TracingSettings): Promise<boolean> {
  if (!settings.endpoint) return false;
  if (holder.__meetingNotesTracing) return true;
  const [api, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
  const exporter = new OTLPTraceExporter({
    url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`,
    ...(settings.headers && { headers: settings.headers }),
  });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Global, so Next's own spans (under Next's server) share the exporter and our spans nest in them.
  provider.register();
  holder.__meetingNotesTracing = {
    api,
    tracer: api.trace.getTracer('meeting-notes'),
    flush: () => provider.forceFlush(),
    async shutdown() {
      await provider.shutdown();
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
  return true;
}

/** Sends what is buffered now (tests, shutdown). */
export async function flushTracing(): Promise<void> {
  await holder.__meetingNotesTracing?.flush();
}

/** Flushes and stops exporting; later spans are not recorded. */
export async function stopTracing(): Promise<void> {
  const tracing = holder.__meetingNotesTracing;
  if (!tracing) return;
  holder.__meetingNotesTracing = undefined;
  await tracing.shutdown();
}

function handleOf(tracing: Tracing, span: Span): SpanHandle {
  return {
    set: (attributes) => span.setAttributes(attributes),
    fail: (reason) => span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: reason }),
  };
}

/** The error's kind, never its message: messages of database and HTTP errors can hold values. */
export function errorType(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (e && typeof e.code === 'string' && e.code !== '') return e.code;
  if (e && typeof e.name === 'string' && e.name !== '') return e.name;
  return 'Error';
}

/**
 * Runs `fn` inside a span. With `onlyInTrace`, a span is made only below another one (the SQL of
 * a request, a job or an attempt), so the worker's idle polling records nothing.
 */
export function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: SpanHandle) => Promise<T>,
  opts: { kind?: SpanKindName; onlyInTrace?: boolean } = {},
): Promise<T> {
  const tracing = holder.__meetingNotesTracing;
  if (!tracing) return fn(NO_SPAN);
  const { api, tracer } = tracing;
  if (opts.onlyInTrace && !api.trace.getActiveSpan()) return fn(NO_SPAN);
  const kind =
    opts.kind === 'server'
      ? api.SpanKind.SERVER
      : opts.kind === 'client'
        ? api.SpanKind.CLIENT
        : api.SpanKind.INTERNAL;
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(handleOf(tracing, span));
    } catch (err) {
      const type = errorType(err);
      span.setAttribute('error.type', type);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` outside any trace: background work that a request only woke (the worker's runs)
 * starts traces of its own instead of landing in the request's after it ended.
 */
export function outsideTrace<T>(fn: () => T): T {
  const tracing = holder.__meetingNotesTracing;
  if (!tracing) return fn();
  return tracing.api.context.with(tracing.api.ROOT_CONTEXT, fn);
}

/** Adds attributes to the span in progress (e.g. the API form, once the request's key is known). */
export function annotateSpan(attributes: Attributes): void {
  holder.__meetingNotesTracing?.api.trace.getActiveSpan()?.setAttributes(attributes);
}

/** Names the request span in progress after its route, once the handler has matched one. */
export function nameRequestRoute(method: string, route: string): void {
  const span = holder.__meetingNotesTracing?.api.trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}

/** One SERVER span per request: method, route, status; failed on a 5xx. */
export function traceRequest(
  request: Request,
  route: string,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (!holder.__meetingNotesTracing) return handle(request);
  return withSpan(
    `${request.method} ${route}`,
    { 'http.request.method': request.method, 'http.route': route },
    async (span) => {
      const response = await handle(request);
      span.set({ 'http.response.status_code': response.status });
      if (response.status >= 500) span.fail(String(response.status));
      return response;
    },
    { kind: 'server' },
  );
}
