import { overrideEnv, restoreEnv } from './env';

/** The JSON log lines the service writes (to stderr) while `work` runs, at debug level. */
export async function capturedLogLines(work: () => Promise<unknown>): Promise<string[]> {
  overrideEnv({ LOG_LEVEL: 'debug' });
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
    restoreEnv();
  }
  return written.join('').split('\n').filter(Boolean);
}
