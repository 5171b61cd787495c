import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config';
import type { Logger } from './context';

/** One mail of the outbox (mail_outbox), as the outbox hands it to the transport. */
export interface MailMessage {
  /** Its row in the outbox, named in the log instead of its content. */
  id: number;
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send: (message: MailMessage) => Promise<void>;
}

/** A mail server that stops answering must not hold the outbox, nor a graceful close, for minutes. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * The transport the outbox sends through: SMTP through nodemailer when SMTP_URL is set; otherwise each message
 * is written as an .eml file under DATA_DIR/outbox/, so a local install can still read its mail (decision 124).
 */
export function createMailer(config: Config, log: Logger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport({ url: config.smtpUrl, ...SMTP_TIMEOUTS });
    return {
      async send(message) {
        await transport.sendMail({
          from: config.mailFrom,
          to: message.to,
          subject: message.subject,
          text: message.text,
        });
      },
    };
  }
  const outbox = path.join(config.dataDir, 'outbox');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({
        from: config.mailFrom,
        to: message.to,
        subject: message.subject,
        text: message.text,
      });
      fs.mkdirSync(outbox, { recursive: true });
      const safeTo = message.to.replace(/[^a-z0-9@._-]/gi, '_');
      const file = path.join(outbox, `${Date.now()}-${safeTo}.eml`);
      // Written whole under another name, then renamed: whoever reads the folder never finds half a mail.
      fs.writeFileSync(`${file}.partial`, info.message as Buffer, { mode: 0o600 });
      fs.renameSync(`${file}.partial`, file);
      log.info(`Mail ${message.id} written to ${file}`);
    },
  };
}
