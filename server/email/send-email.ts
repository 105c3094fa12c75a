import { randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Queryable } from '../db/client';
import { emails } from '../db/schema';
import { log } from '../log';

export interface Mailer {
  /**
   * Sends (or, without SMTP, logs) an email and keeps it in the database either way (D21), on the
   * account it went to. accountId null: an address with no account (an operator in ADMIN_EMAILS
   * who has not signed up), sent or logged but kept nowhere.
   */
  send(
    db: Queryable,
    message: { accountId: string | null; to: string; subject: string; body: string },
  ): Promise<void>;
}

export function createMailer(opts: { smtpUrl: string | undefined; from: string }): Mailer {
  const { smtpUrl } = opts;
  // nodemailer is loaded with the first email, not when the server starts: most servers send
  // none for a long time, and every module loaded stays resident (issue 14 item 5).
  let transport: Promise<Transporter> | undefined;
  const smtp = (url: string) => {
    transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(url));
    return transport;
  };
  return {
    async send(db, message) {
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
        log.info('email (no SMTP_URL configured)', {
          to: message.to,
          subject: message.subject,
          body: message.body,
        });
      }
      const { accountId, ...content } = message;
      if (accountId === null) return;
      await db.insert(emails).values({
        id: randomUUID(),
        accountId,
        ...content,
        transport: sentVia,
        error,
        createdAt: new Date(),
      });
    },
  };
}
