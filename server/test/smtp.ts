import net from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  raw: string;
  subject: string;
  /** The first link in the message, decoded from quoted-printable. */
  link: string | null;
}

/**
 * A real SMTP server on loopback that keeps what it receives, for tests. `delayMs` holds each answer to a
 * message that long (a slow mail server); `port` listens on a chosen port (one that was down until now).
 */
export async function startSmtpServer(options: { delayMs?: number; port?: number } = {}) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = chunks.join('');
        const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: /^Subject: (.*)$/m.exec(raw)?.[1] ?? '',
          link: /https?:\/\/\S+/.exec(text)?.[0] ?? null,
        });
        if (options.delayMs) setTimeout(callback, options.delayMs);
        else callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Messages sent to one address, oldest first. */
    to: (email: string) => received.filter((m) => m.to.includes(email)),
    /** Waits until a message to the address arrives (SMTP is asynchronous). */
    async waitFor(email: string, count = 1, timeoutMs = 5000): Promise<ReceivedMail> {
      const start = Date.now();
      while (Date.now() - start < timeoutMs) {
        const list = received.filter((m) => m.to.includes(email));
        if (list.length >= count) return list[count - 1];
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`No mail #${count} to ${email} within ${timeoutMs} ms`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An SMTP address where nothing listens: a mail server that is down. */
export async function closedSmtpUrl(): Promise<{ url: string; port: number }> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const address = probe.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { url: `smtp://127.0.0.1:${port}`, port };
}
