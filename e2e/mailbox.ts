import fs from 'node:fs';
import path from 'node:path';
import { type CapturedMail, waitForMail } from '../test/support/smtp-capture';
import { STATE_DIR } from './state';

// What the SMTP server of e2e/start-server.ts caught. That server runs in the web server's process,
// so it writes each mail to a file, one JSON mail a line, and the specs read them back here.
// Finding, waiting for and reading a mail is test/support/smtp-capture.ts's, as in the vitest suite.

export const MAILBOX_FILE = path.join(STATE_DIR, 'mails.jsonl');

/** Keeps a caught mail in the file (e2e/start-server.ts's side). */
export function keepMail(mail: CapturedMail): void {
  fs.appendFileSync(MAILBOX_FILE, `${JSON.stringify(mail)}\n`);
}

export function readMailbox(): CapturedMail[] {
  if (!fs.existsSync(MAILBOX_FILE)) return [];
  return fs
    .readFileSync(MAILBOX_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CapturedMail);
}

/** The newest mail to `to` whose subject matches, waited for (sending is done when the page answers, but to be sure). */
export function mailTo(to: string, subject: string | RegExp): Promise<CapturedMail> {
  return waitForMail(readMailbox, to, subject);
}
