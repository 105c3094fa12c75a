/** A request body read whole, or why not: larger than allowed, or the client broke it off. */
export type LimitedBody = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too-large' | 'unreadable' };

/**
 * Reads a request body while counting it, and stops as soon as it passes `maxBytes`: a body
 * that declares a larger Content-Length is refused before a byte is read, and a chunked one is
 * cut off at the chunk that crosses the limit, so at most `maxBytes` plus one chunk is held.
 *
 * The rest of an oversized body is left unread rather than cancelled: cancelling destroys the
 * socket under Node (and Next), and the client would see a reset instead of the 413 that
 * explains it; for the same reason the answer does not say `Connection: close` (the server would
 * close a socket that still has unread bytes, which resets it). Unread, the body just stops
 * flowing (TCP back-pressure) until the client, having its answer, gives up, or the server's
 * request timeout ends the connection.
 */
export async function readLimitedBody(request: Request, maxBytes: number): Promise<LimitedBody> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes)
    return { ok: false, reason: 'too-large' };
  if (!request.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) return { ok: false, reason: 'too-large' };
      chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
