import http from 'node:http';

export interface UploadOutcome {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Body bytes the client had handed to its socket when the answer arrived. */
  bytesSentBeforeAnswer: number;
  /** Whether the client had sent the whole body by then. */
  finishedSending: boolean;
}

/**
 * Posts a large body the way an attacker would, and stops sending as soon as an answer comes:
 * with Content-Length declared, or chunked without it. `prefix` opens the body (e.g. the start of
 * a JSON object), filler follows. The outcome says how much had gone out when the server
 * answered, which shows whether it answered before reading everything.
 */
export function uploadUntilAnswered(
  url: string,
  opts: {
    headers?: Record<string, string>;
    totalBytes: number;
    declareLength: boolean;
    prefix?: string;
    localAddress?: string;
  },
): Promise<UploadOutcome> {
  const prefix = Buffer.from(opts.prefix ?? '');
  const chunk = Buffer.alloc(64 * 1024, 'p');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(url, {
      method: 'POST',
      headers: {
        ...opts.headers,
        ...(opts.declareLength ? { 'content-length': String(opts.totalBytes) } : {}),
      },
      ...(opts.localAddress && { localAddress: opts.localAddress }),
    });
    req.on('response', (res) => {
      answered = true;
      const bytesSentBeforeAnswer = sent;
      const finishedSending = sent >= opts.totalBytes;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(parts).toString('utf8'),
          bytesSentBeforeAnswer,
          finishedSending,
        });
        req.destroy();
      });
      res.on('error', reject);
    });
    // Once answered, the server may close the connection under the rest of the body: expected.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const pump = () => {
      while (!answered && sent < opts.totalBytes) {
        const piece =
          sent === 0 && prefix.length
            ? prefix
            : chunk.subarray(0, Math.min(chunk.length, opts.totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered && sent >= opts.totalBytes) req.end();
    };
    pump();
  });
}
