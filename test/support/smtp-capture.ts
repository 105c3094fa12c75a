import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on 127.0.0.1 that keeps what it is sent (the emailed links are followed
// from here), and the reading of what it caught: finding a mail, waiting for one, the link in it.
// Free of any test runner: the vitest suite uses it, and so do the end-to-end tests (the
// Playwright server, e2e/start-server.ts, runs one and e2e/mailbox.ts reads what it caught).

export interface CapturedMail {
  to: string[];
  subject: string;
  /** The text body, transfer encoding undone. */
  text: string;
}

function decodeHeader(value: string): string {
  return value
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset, enc: string, text: string) =>
      enc.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    )
    .replace(/\?=\s+=\?/g, '');
}

/** A single-part text message's body (what nodemailer sends for `text`), decoded. */
export function decodeBody(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

export async function startSmtpCapture(
  opts: { port?: number; onMail?: (mail: CapturedMail) => void } = {},
): Promise<{ port: number; mails: CapturedMail[]; close(): Promise<void> }> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
        const mail = {
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: decodeHeader(/^subject:\s*(.*)$/im.exec(head)?.[1] ?? ''),
          text: decodeBody(raw),
        };
        mails.push(mail);
        opts.onMail?.(mail);
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = ((server as unknown as { server: net.Server }).server.address() as AddressInfo).port;
  return {
    port,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text to `path` (e.g. "/verify-email"), as a URL. */
export function linkIn(mail: CapturedMail, path: string): URL {
  const match = new RegExp(`https?://[^\\s]+${path.replace(/[/]/g, '\\/')}\\?token=[A-Za-z0-9_-]+`).exec(
    mail.text,
  );
  if (!match) throw new Error(`no ${path} link in the mail "${mail.subject}":\n${mail.text}`);
  return new URL(match[0]);
}

/** A mail's link to `path` as the path and query alone, to open on whichever server is tested. */
export function linkPathIn(mail: CapturedMail, path: string): string {
  const link = linkIn(mail, path);
  return `${link.pathname}${link.search}`;
}

const subjectMatches = (mail: CapturedMail, subject: string | RegExp) =>
  typeof subject === 'string' ? mail.subject === subject : subject.test(mail.subject);

/** The newest of `mails` to `to` whose subject is `subject` (or matches it), if there is one. */
export function newestMailTo(
  mails: readonly CapturedMail[],
  to: string,
  subject: string | RegExp,
): CapturedMail | undefined {
  return mails.findLast((m) => m.to.includes(to) && subjectMatches(m, subject));
}

/**
 * Waits for the newest mail to `to` with that subject, reading the mails again every
 * `intervalMs` (some are sent in the background, after the call that caused them has answered).
 * After `timeoutMs` it fails naming the subjects that did reach `to`.
 */
export async function waitForMail(
  read: () => readonly CapturedMail[],
  to: string,
  subject: string | RegExp,
  { timeoutMs = 15_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<CapturedMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = read();
    const found = newestMailTo(mails, to, subject);
    if (found) return found;
    if (Date.now() >= deadline) {
      const subjects = mails.filter((m) => m.to.includes(to)).map((m) => m.subject);
      throw new Error(
        `no mail "${subject}" to ${to} within ${timeoutMs} ms; mails to it: ${JSON.stringify(subjects)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
