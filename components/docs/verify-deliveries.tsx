import { Card } from '../ui/card';
import { VerifyExamples } from '../webhooks/verify-examples';

/** Below the reference: the event catalog's signatures, and how to check them by hand. */
export function VerifyDeliveries() {
  return (
    <Card className="space-y-4">
      <div>
        <h2 className="text-lg font-semibold tracking-tight">Verifying a webhook delivery</h2>
        <p className="mt-1 max-w-3xl text-sm text-zinc-600">
          The reference above lists each event under <strong className="font-medium">Webhooks</strong>, with
          its body and headers; the same catalog is published as AsyncAPI at{' '}
          <a className="font-medium text-indigo-700 hover:underline" href="/api/asyncapi.json?form=A">
            /api/asyncapi.json
          </a>
          . Every delivery is signed twice with the endpoint’s secret: check either signature over the raw
          body, exactly as received, with the secret exactly as shown when it was created, and refuse a
          timestamp more than 5 minutes from your clock.
        </p>
      </div>
      <VerifyExamples />
    </Card>
  );
}
