// How a receiver verifies a delivery by hand, in three languages: shown on /docs below the event
// catalog, in the settings app's webhook pages and in docs/api.md, and run against real
// deliveries by test/webhooks/verification-examples.test.ts, so that what they say is tried.

export interface VerifyExample {
  /** The code block's language. */
  language: 'javascript' | 'python' | 'bash';
  title: string;
  /** The file name the example is saved as to run it. */
  file: string;
  source: string;
}

export const VERIFY_EXAMPLES: VerifyExample[] = [
  {
    language: 'javascript',
    title: 'Node',
    file: 'verify-webhook.mjs',
    source: `// Verifies a webhook delivery by hand in Node (no library): either signature is enough.
// rawBody is the request body's bytes as received (a Buffer), never re-serialised JSON.
import crypto from 'node:crypto';

const safeEqual = (a, b) => {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};
const fresh = (t, toleranceSeconds = 300) =>
  Number.isInteger(t) && Math.abs(Date.now() / 1000 - t) <= toleranceSeconds;

/** X-Service-Signature: t=<t>,v1=<hex>[,v1=<hex>], keyed with the secret exactly as shown. */
export function verifyServiceSignature(rawBody, header, secret) {
  const pairs = (header ?? '').split(',').map((p) => p.split('=', 2));
  const t = Number(pairs.find(([k]) => k === 't')?.[1]);
  if (!fresh(t)) return false;
  const expected = crypto.createHmac('sha256', secret).update(t + ".").update(rawBody).digest('hex');
  return pairs.some(([k, v = '']) => k === 'v1' && safeEqual(v, expected));
}

/** Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>]. */
export function verifyStandardWebhook(rawBody, headers, secret) {
  const id = headers['webhook-id'];
  const t = Number(headers['webhook-timestamp']);
  if (!id || !fresh(t)) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(id + "." + t + ".").update(rawBody).digest('base64');
  const signatures = (headers['webhook-signature'] ?? '').split(' ');
  return signatures.some((s) => s.startsWith('v1,') && safeEqual(s.slice(3), expected));
}
`,
  },
  {
    language: 'python',
    title: 'Python',
    file: 'verify_webhook.py',
    source: `# Verifies a webhook delivery by hand in Python (no library): either signature is enough.
# raw is the request body's bytes as received (Flask: request.get_data()), never re-serialised JSON.
import base64, hashlib, hmac, json, sys, time


def verify_service_signature(raw: bytes, header: str, secret: str, tolerance: int = 300) -> bool:
    """X-Service-Signature: t=<t>,v1=<hex>[,v1=<hex>], keyed with the secret exactly as shown."""
    pairs = [p.split("=", 1) for p in header.split(",") if "=" in p]
    t = next((int(v) for k, v in pairs if k == "t" and v.isdigit()), 0)
    if abs(time.time() - t) > tolerance:
        return False
    expected = hmac.new(secret.encode(), f"{t}.".encode() + raw, hashlib.sha256).hexdigest()
    return any(k == "v1" and hmac.compare_digest(expected.encode(), v.encode()) for k, v in pairs)


def verify_standard_webhook(raw: bytes, headers, secret: str, tolerance: int = 300) -> bool:
    """Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature: v1,<base64>[ v1,<base64>]."""
    msg_id, ts = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not msg_id or not ts.isdigit() or abs(time.time() - int(ts)) > tolerance:
        return False
    key = base64.b64decode(secret.removeprefix("whsec_"))
    digest = hmac.new(key, f"{msg_id}.{ts}.".encode() + raw, hashlib.sha256).digest()
    expected = base64.b64encode(digest).decode()
    return any(
        s.startswith("v1,") and hmac.compare_digest(expected.encode(), s[3:].encode())
        for s in headers.get("webhook-signature", "").split(" ")
    )


if __name__ == "__main__":
    # A saved delivery: python3 verify_webhook.py SECRET HEADERS.json < BODY  (exit 0 when genuine)
    secret, headers = sys.argv[1], json.load(open(sys.argv[2]))
    raw = sys.stdin.buffer.read()
    ok = verify_service_signature(raw, headers.get("x-service-signature", ""), secret)
    ok = ok and verify_standard_webhook(raw, headers, secret)
    print("genuine" if ok else "not genuine")
    sys.exit(0 if ok else 1)
`,
  },
  {
    language: 'bash',
    title: 'Shell (openssl)',
    file: 'verify-webhook.sh',
    source: `#!/usr/bin/env bash
# Verifies a saved webhook delivery's X-Service-Signature with openssl: exit 0 when genuine.
#   verify-webhook.sh SECRET "X-Service-Signature value" < BODY
# The body must be the bytes as received; the secret exactly as shown at creation.
set -euo pipefail
secret=$1 header=$2
t=$(tr ',' '\\n' <<<"$header" | sed -n 's/^t=//p')
[[ $t =~ ^[0-9]+$ ]] && (( t > $(date +%s) - 300 && t < $(date +%s) + 300 )) || { echo "stale"; exit 1; }
expected=$({ printf '%s.' "$t"; cat; } | openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
if tr ',' '\\n' <<<"$header" | grep -qx "v1=$expected"; then echo "genuine"; else echo "not genuine"; exit 1; fi
`,
  },
];
