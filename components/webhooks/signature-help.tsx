import { Card } from '../ui/card';
import { VerifyExamples } from './verify-examples';

/** How a receiver checks a delivery (docs/rules.md#signatures-and-headers). */
export function SignatureHelp() {
  return (
    <Card>
      <h2 className="text-base font-semibold">Verifying deliveries</h2>
      <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm text-zinc-700">
        <li>
          Read the <code className="font-mono text-xs">X-Service-Signature</code> header:{' '}
          <code className="break-all font-mono text-xs">
            t=&lt;unix timestamp&gt;,v1=&lt;hex signature&gt;
          </code>
          .
        </li>
        <li>
          Compute the HMAC-SHA256 of the string{' '}
          <code className="font-mono text-xs">&lt;t&gt;.&lt;raw body&gt;</code>, keyed with the
          endpoint&apos;s signing secret exactly as it was shown (including any{' '}
          <code className="font-mono text-xs">whsec_</code> prefix), hex-encode it and compare it with{' '}
          <code className="font-mono text-xs">v1</code> in constant time. Use the raw body bytes: parsing and
          re-serializing the JSON changes them.
        </li>
        <li>
          While a rotated-out secret is still valid, the header carries one{' '}
          <code className="font-mono text-xs">v1</code> per secret (
          <code className="break-all font-mono text-xs">t=…,v1=&lt;new&gt;,v1=&lt;old&gt;</code>): accept the
          delivery when any of them matches.
        </li>
        <li>
          Reject the delivery if no signature matches or if t is more than 5 minutes away from your clock.
        </li>
        <li>
          Standard Webhooks libraries (such as <code className="font-mono text-xs">standardwebhooks</code> or
          Svix&apos;s) can verify the <code className="font-mono text-xs">webhook-id</code>,{' '}
          <code className="font-mono text-xs">webhook-timestamp</code> and{' '}
          <code className="font-mono text-xs">webhook-signature</code> headers with the same secret instead.
        </li>
        <li>
          Answer with any 2xx within 10 seconds. Deliveries are at least once: drop repeats by the{' '}
          <code className="font-mono text-xs">webhook-id</code> header (the delivery id, covered by the
          Standard Webhooks signature), or by <code className="font-mono text-xs">data.id</code> with the
          event name from the signed body.
        </li>
      </ol>
      <details className="mt-4 text-sm">
        <summary className="cursor-pointer font-medium text-indigo-700">
          Examples in Node, Python and the shell
        </summary>
        <div className="mt-3">
          <VerifyExamples />
        </div>
      </details>
    </Card>
  );
}
