import path from 'node:path';
import { STATE_DIR } from './state';

/** Where e2e/start-server.ts's OTLP collector writes the spans the server exports, one JSON span a line. */
export const SPANS_FILE = path.join(STATE_DIR, 'spans.jsonl');
