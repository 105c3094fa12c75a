import { randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Queryable } from '../db/client';
import { emails } from '../db/schema';
import { log } from '../log';

export interface OutgoingEmail {
  /** The account it is kept on; null for an address with no account (an operator who has not signed up). */
  accountId: string | null;
  to: string;
  subject: string;
  body: string;
  /**
   * The body holds a link that proves control of the address (verify it, reset a password).
   * Such a message reaches only the mailbox: it is kept without its body, and with SMTP it is
   * never written to a log. Whoever reads it anywhere else has not proved they own the address.
   */
  provesAddress?: boolean;
}

export interface Mailer {
  /**
   * Sends the email through SMTP, or without SMTP writes it to the server's log (local
   * development only: a production deployment refuses to start without SMTP). Kept on the
   * account it went to, for the settings app's list of sent messages.
   */
  send(db: Queryable, message: OutgoingEmail): Promise<void>;
}

export function createMailer(opts: { smtpUrl: string | undefined; from: string }): Mailer {
  const { smtpUrl } = opts;
  // nodemailer is loaded with the first email, not when the server starts: most servers send
  // none for a long time, and every module loaded stays resident.
  let transport: Promise<Transporter> | undefined;
  const smtp = (url: string) => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
    return transport;
  };
  return {
    async send(db, { accountId, provesAddress = false, ...message }) {
      let sentVia = 'log';
      let error: string | null = null;
      if (smtpUrl) {
        try {
          await (await smtp(smtpUrl)).sendMail({
            from: opts.from,
            to: message.to,
            subject: message.subject,
            text: message.body,
          });
          sentVia = 'smtp';
        } catch (err) {
          sentVia = 'failed';
          error = err instanceof Error ? err.message : String(err);
          log.error('email not sent', { to: message.to, subject: message.subject, err });
        }
      } else {
        log.info('email (no SMTP_URL configured)', message);
      }
      if (accountId === null) return;
      await db.insert(emails).values({
        id: randomUUID(),
        accountId,
        to: message.to,
        subject: message.subject,
        body: provesAddress ? null : message.body,
        transport: sentVia,
        error,
        createdAt: new Date(),
      });
    },
  };
}
