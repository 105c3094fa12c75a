import fs from 'node:fs';
import { expect } from '@playwright/test';
import type { CapturedMail } from '../test/support/smtp-capture';
import { MAILBOX_FILE } from './mailbox-file';

// What the SMTP server of e2e/start-server.ts caught.

export function readMailbox(): CapturedMail[] {
  if (!fs.existsSync(MAILBOX_FILE)) return [];
  return fs
    .readFileSync(MAILBOX_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CapturedMail);
}

/** The newest mail to `to` whose subject matches, waited for (sending is done when the page answers, but to be sure). */
export async function mailTo(to: string, subject: string | RegExp): Promise<CapturedMail> {
  let found: CapturedMail | undefined;
  await expect
    .poll(
      () => {
        found = readMailbox()
          .filter((m) => m.to.includes(to))
          .filter((m) => (typeof subject === 'string' ? m.subject === subject : subject.test(m.subject)))
          .at(-1);
        return !!found;
      },
      { message: `a mail "${subject}" to ${to}` },
    )
    .toBe(true);
  return found!;
}

/** A link of the mail (e.g. to "/verify-email"), as the path and query to open on the tested server. */
export function linkPath(mail: CapturedMail, pathname: string): string {
  const match = new RegExp(`https?://\\S+${pathname}\\?token=[A-Za-z0-9_-]+`).exec(mail.text);
  if (!match) throw new Error(`no ${pathname} link in "${mail.subject}":\n${mail.text}`);
  const url = new URL(match[0]);
  return `${url.pathname}${url.search}`;
}
