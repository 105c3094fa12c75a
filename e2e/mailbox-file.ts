import path from 'node:path';
import { STATE_DIR } from './state';

/** Where e2e/start-server.ts's SMTP server writes what it catches, one JSON mail a line. */
export const MAILBOX_FILE = path.join(STATE_DIR, 'mails.jsonl');
