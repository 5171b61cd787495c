import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Config } from '../config';
import type { Logger } from './context';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** The link the message carries, logged when mail goes to the outbox folder. */
  link?: string;
}

export interface Mailer {
  send: (message: MailMessage) => Promise<void>;
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise each message is written as an .eml file under
 * DATA_DIR/outbox/ and its link is logged, so a local install can still reset passwords.
 */
export function createMailer(config: Config, log: Logger): Mailer {
  if (config.smtpUrl) {
    const transport = nodemailer.createTransport(config.smtpUrl);
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
      fs.writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      log.info(`Mail to ${message.to} written to ${file}${message.link ? `: ${message.link}` : ''}`);
    },
  };
}
