'use client';

import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { ErrorMessage, Loading } from '../ui/card';
import { DEFAULT_FORM, parseFormName } from '@/server/domain';
import { FormSwitch, type ApiForm } from './form-switch';
import { SWAGGER_UI_OPTIONS } from './swagger-options';

// Swagger UI's UMD bundle, served by app/docs/swagger/[file]/route.ts from swagger-ui-dist and
// loaded as a plain <script>: the 1.7 MB bundle stays out of the app's own chunks and out of
// the bundler, and it only loads on this page.
const BUNDLE_URL = '/docs/swagger/swagger-ui-bundle.js';
const CSS_URL = '/docs/swagger/swagger-ui.css';

interface SwaggerUi {
  specActions: { updateUrl(url: string): void; download(url: string): void };
}
interface SwaggerRequest {
  url: string;
  headers: Record<string, string>;
}
type SwaggerUiBundle = (options: {
  domNode: HTMLElement;
  url: string;
  deepLinking?: boolean;
  docExpansion?: 'list' | 'full' | 'none';
  defaultModelsExpandDepth?: number;
  displayRequestDuration?: boolean;
  persistAuthorization?: boolean;
  tryItOutEnabled?: boolean;
  validatorUrl?: string | null;
  requestInterceptor?(request: SwaggerRequest): SwaggerRequest;
}) => SwaggerUi;

declare global {
  interface Window {
    SwaggerUIBundle?: SwaggerUiBundle;
  }
}

let bundle: Promise<SwaggerUiBundle> | null = null;

function loadSwaggerUi(): Promise<SwaggerUiBundle> {
  if (window.SwaggerUIBundle) return Promise.resolve(window.SwaggerUIBundle);
  bundle ??= new Promise<SwaggerUiBundle>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = BUNDLE_URL;
    script.async = true;
    script.onload = () =>
      window.SwaggerUIBundle
        ? resolve(window.SwaggerUIBundle)
        : reject(new Error('Swagger UI did not start.'));
    script.onerror = () => {
      script.remove();
      reject(new Error('Could not load Swagger UI. Check your connection and try again.'));
    };
    document.head.append(script);
  }).catch((err: unknown) => {
    bundle = null; // let "Try again" start over
    throw err;
  });
  return bundle;
}

const specUrl = (form: ApiForm) => `/api/openapi.json?form=${form}`;
const parseForm = (value: string | null): ApiForm => (value && parseFormName(value)) || DEFAULT_FORM;

export function ApiReference() {
  const searchParams = useSearchParams();
  const [form, setForm] = useState<ApiForm>(() => parseForm(searchParams.get('form')));
  const [status, setStatus] = useState<{ state: 'loading' | 'ready' } | { state: 'error'; error: Error }>({
    state: 'loading',
  });
  const container = useRef<HTMLElement>(null);
  const ui = useRef<SwaggerUi | null>(null);
  // Read by the request interceptor and by the first render of Swagger UI, both outside React.
  const formRef = useRef(form);
  // Loads and mounts Swagger UI whenever the status turns to loading: on the first render and
  // after "Try again".
  const loading = status.state === 'loading';

  useEffect(() => {
    if (!loading) return;
    let cancelled = false;
    loadSwaggerUi().then(
      (SwaggerUIBundle) => {
        if (cancelled || !container.current || ui.current) return;
        ui.current = SwaggerUIBundle({
          domNode: container.current,
          url: specUrl(formRef.current),
          ...SWAGGER_UI_OPTIONS,
          // "Try it out" answers in the form on screen, unless the X-API-Form field is filled in.
          requestInterceptor(request) {
            const hasForm = Object.keys(request.headers).some((h) => h.toLowerCase() === 'x-api-form');
            if (!hasForm && new URL(request.url, window.location.href).pathname.startsWith('/v1/')) {
              request.headers['X-API-Form'] = formRef.current;
            }
            return request;
          },
        });
        setStatus({ state: 'ready' });
      },
      (error: unknown) => {
        if (!cancelled)
          setStatus({ state: 'error', error: error instanceof Error ? error : new Error(String(error)) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [loading]);

  // What Swagger UI leaves unnamed gets a name (its server picker is a <select>
  // in an empty <label>; axe: select-name, critical), and its own <main> elements (the operations,
  // a JSON Schema) become named regions: the page's <main> is the one main landmark. Its React only
  // sets the attributes it owns, so one given here stays across its re-renders; new nodes are
  // looked at as they come.
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const name = () => {
      for (const select of root.querySelectorAll<HTMLSelectElement>('select:not([aria-label])')) {
        // Its <label> wraps it with no text of its own: the options' text is no name.
        if (select.id === 'servers') select.setAttribute('aria-label', 'Server');
        else if (!select.labels?.length && !select.hasAttribute('aria-labelledby'))
          select.setAttribute('aria-label', 'Choose a value');
      }
      for (const main of root.querySelectorAll<HTMLElement>('main:not([role])')) {
        main.setAttribute('role', 'region');
        if (!main.hasAttribute('aria-label')) main.setAttribute('aria-label', 'Operations');
      }
    };
    name();
    const observer = new MutationObserver(name);
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, []);

  function switchForm(next: ApiForm) {
    if (next === formRef.current) return;
    formRef.current = next;
    setForm(next);
    const url = new URL(window.location.href);
    url.searchParams.set('form', next);
    url.hash = '';
    window.history.replaceState(null, '', url);
    ui.current?.specActions.updateUrl(specUrl(next));
    ui.current?.specActions.download(specUrl(next));
  }

  return (
    <div className="space-y-6">
      <link rel="stylesheet" href={CSS_URL} precedence="default" />
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">API reference</h1>
        <div className="mt-2 max-w-3xl space-y-2 text-sm text-zinc-600">
          <p>
            The <code className="font-mono text-xs">/v1</code> API comes in two forms on the same paths. They
            differ in fields, parameters, limits and error bodies:
          </p>
          <ul className="list-disc space-y-1 pl-5">
            <li>
              <strong className="font-medium text-zinc-800">Form A</strong>: errors as{' '}
              <code className="font-mono text-xs">{'{"error":{"code","message"}}'}</code>, opaque cursors, a
              daily request limit per plan.
            </li>
            <li>
              <strong className="font-medium text-zinc-800">Form B</strong>: errors as{' '}
              <code className="font-mono text-xs">{'{"error":"message"}'}</code>, timestamp cursors, 100
              requests per minute per key.
            </li>
          </ul>
          <p>
            Every request sends{' '}
            <code className="font-mono text-xs">Authorization: Bearer &lt;API key&gt;</code>. A key answers in
            the form chosen when it was created; the <code className="font-mono text-xs">X-API-Form: A</code>{' '}
            or <code className="font-mono text-xs">B</code> header picks a form for one request. “Try it out”
            below sends real requests to this server in the form on screen: use “Authorize” with one of your{' '}
            <Link href="/keys" className="font-medium text-indigo-700 hover:underline">
              API keys
            </Link>{' '}
            first.
          </p>
        </div>
      </div>

      <FormSwitch value={form} onChange={switchForm} />

      {status.state === 'loading' ? <Loading label="Loading the API reference…" /> : null}
      {status.state === 'error' ? (
        <ErrorMessage error={status.error} onRetry={() => setStatus({ state: 'loading' })} />
      ) : null}
      <section
        ref={container}
        data-testid="api-reference"
        data-form={form}
        aria-label={`OpenAPI reference, Form ${form}`}
        className="light-island min-h-24 overflow-x-auto rounded-lg bg-white shadow-sm ring-1 ring-zinc-200"
      />
    </div>
  );
}
