import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Webhook signing secrets at rest: AES-256-GCM under a key of the service's own
 * (SECRETS_KEY, see secret-keys.ts). A sealed value names its key, so the key can be rotated:
 * `enc:v1:<key id>:<iv>:<ciphertext and tag>` (base64url). A stored value without the `enc:`
 * prefix is a secret from before encryption; it still opens, and seal-secrets.ts seals it.
 */
export interface SecretBox {
  /** The id (8 hex digits of the key's SHA-256) that new sealed values name. */
  readonly currentKeyId: string;
  seal(plaintext: string): string;
  /** The plaintext of a sealed (or legacy plaintext) value; throws for a key it does not hold. */
  open(stored: string): string;
  /** Whether a stored value is sealed under the current key (false: plaintext or an older key). */
  isCurrent(stored: string): boolean;
}

const PREFIX = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export function keyIdOf(key: Uint8Array): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createSecretBox(keys: { current: Uint8Array; previous?: readonly Uint8Array[] }): SecretBox {
  const all = [keys.current, ...(keys.previous ?? [])];
  for (const key of all)
    if (key.length !== KEY_BYTES)
      throw new Error(`A secrets key must be ${KEY_BYTES} bytes, got ${key.length}`);
  const byId = new Map(all.map((key) => [keyIdOf(key), key] as const));
  const currentKeyId = keyIdOf(keys.current);

  return {
    currentKeyId,
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.current, iv);
      // The key id is authenticated too: a value cannot be relabelled to another key.
      cipher.setAAD(Buffer.from(currentKeyId));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${currentKeyId}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
    },
    open(stored) {
      // Plaintext from before encryption (no form's secret starts with `enc:`).
      if (!stored.startsWith('enc:')) return stored;
      if (!isSealed(stored))
        throw new Error(
          `Cannot open a webhook secret sealed in an unknown format (${stored.split(':', 2).join(':')}:…)`,
        );
      const [keyId, ivText, sealedText, ...extra] = stored.slice(PREFIX.length).split(':');
      if (!keyId || !ivText || !sealedText || extra.length > 0)
        throw new Error('Cannot open a webhook secret: the stored value is not a well-formed sealed value');
      const key = byId.get(keyId);
      if (!key)
        throw new Error(
          `Cannot open a webhook secret sealed under key ${keyId}: that key is not configured ` +
            `(the current key is ${currentKeyId}; give the key it was sealed under in SECRETS_PREVIOUS_KEYS)`,
        );
      const iv = Buffer.from(ivText, 'base64url');
      const sealed = Buffer.from(sealedText, 'base64url');
      if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES)
        throw new Error(
          `Cannot open a webhook secret sealed under key ${keyId}: the stored value is truncated`,
        );
      // authTagLength: without it GCM would accept a shorter tag, which is easier to forge.
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      try {
        return Buffer.concat([
          decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        throw new Error(
          `Cannot open a webhook secret sealed under key ${keyId}: it does not authenticate (the stored value was altered)`,
        );
      }
    },
    isCurrent: (stored) => stored.startsWith(`${PREFIX}${currentKeyId}:`),
  };
}
