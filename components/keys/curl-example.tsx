'use client';

import Link from 'next/link';
import { useSyncExternalStore } from 'react';
import { Card } from '../ui/card';
import { CopyButton } from '../ui/copy-button';

const noSubscription = () => () => {};

/** The origin this app is served from; a placeholder while rendering on the server. */
function useOrigin() {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => 'https://your-host',
  );
}

export function CurlExample() {
  const origin = useOrigin();
  // Without X-API-Form a key answers in its own form, whichever that is; the second command shows
  // the header choosing one.
  const inKeysForm = `curl -H "Authorization: Bearer mnk_YOUR_API_KEY" \\\n  ${origin}/v1/notes`;
  const inFormB = `curl -H "Authorization: Bearer mnk_YOUR_API_KEY" \\\n  -H "X-API-Form: B" \\\n  ${origin}/v1/notes`;
  return (
    <Card>
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-base font-semibold">Call the API</h2>
        <Link href="/docs" className="text-sm font-medium text-indigo-700 hover:underline">
          Open the API reference →
        </Link>
      </div>
      <p className="mt-1 text-sm text-zinc-600">
        Send the key as a bearer token. A key answers in its own form; the{' '}
        <code className="font-mono text-xs">X-API-Form</code> header picks the other one for a single request.
      </p>
      <Snippet label="List your notes" code={inKeysForm} />
      <Snippet label="The same request in Form B" code={inFormB} />
      <McpConnection origin={origin} />
    </Card>
  );
}

/** Where AI assistants connect: the MCP server, with the same keys. */
function McpConnection({ origin }: { origin: string }) {
  const url = `${origin}/mcp`;
  const claudeCode = `claude mcp add --transport http meeting-notes ${url} \\\n  --header "Authorization: Bearer mnk_YOUR_API_KEY"`;
  return (
    <section aria-labelledby="mcp-heading" className="mt-6 border-t border-zinc-200 pt-4">
      <h3 id="mcp-heading" className="text-sm font-semibold">
        Connect an AI assistant (MCP)
      </h3>
      <p className="mt-1 text-sm text-zinc-600">
        Claude, Cursor, VS Code and other MCP clients can search and read your meetings through the MCP server
        at this URL (Streamable HTTP), with a key sent as a bearer token in the{' '}
        <code className="font-mono text-xs">Authorization</code> header.
      </p>
      <Snippet label="MCP server URL" code={url} copyLabel="Copy URL" />
      <Snippet label="Add it to Claude Code" code={claudeCode} />
    </section>
  );
}

function Snippet({
  label,
  code,
  copyLabel = 'Copy command',
}: {
  label: string;
  code: string;
  copyLabel?: string;
}) {
  return (
    <figure className="mt-4">
      <figcaption className="mb-1 text-xs font-medium text-zinc-500">{label}</figcaption>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <pre
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the command scrolls sideways on a phone; keyboard users must be able to focus it to scroll it (axe scrollable-region-focusable)
          tabIndex={0}
          className="grow overflow-x-auto rounded-md bg-zinc-900 px-3 py-2 font-mono text-xs leading-relaxed text-zinc-100"
        >
          <code>{code}</code>
        </pre>
        <CopyButton value={code} label={copyLabel} />
      </div>
    </figure>
  );
}
