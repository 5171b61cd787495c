import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../schema/auth';
import { closedSmtpUrl, startSmtpServer } from '../../test/smtp';
import { startTestServer, type TestServer } from '../../test/test-server';
import { queueMail, retryDelayMs, sendDueMail } from './mail.service';
import { statement } from '../../db/client';

interface OutboxRow {
  attempts: number;
  sentAt: number | null;
  text: string | null;
  lastError: string | null;
}

let t: TestServer;
let down: { url: string; port: number };
beforeAll(async () => {
  down = await closedSmtpUrl();
  t = await startTestServer({ SMTP_URL: down.url });
});
afterAll(async () => {
  await t.close();
});

const outboxRowOf = async (to: string) =>
  // better-sqlite3 types a row as unknown; the columns are named to match OutboxRow.
  (await statement(
    t.db,
    'select attempts, sent_at as "sentAt", text, last_error as "lastError" from mail_outbox where to_address = ?',
  ).get([to])) as OutboxRow | undefined;

describe('the mail outbox', () => {
  it('answers while the mail server is down, retries with back-off, and erases the body once sent', async () => {
    const user = await t.buildUser();
    const res = await t.client().post('/api/auth/forgot-password', { email: user.email });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: MESSAGES.resetSent });

    await t.server.outbox.settle();
    const failed = (await outboxRowOf(user.email))!;
    expect(failed).toMatchObject({ attempts: 1, sentAt: null, lastError: expect.stringMatching(/ECONNREFUSED/) });
    expect(failed.text).toMatch(/\/reset-password\?token=/);

    // Nothing is tried again before its back-off has passed.
    t.server.outbox.wake();
    await t.server.outbox.settle();
    expect((await outboxRowOf(user.email))!.attempts).toBe(1);

    const smtp = await startSmtpServer({ port: down.port });
    try {
      t.advance(retryDelayMs(1));
      t.server.outbox.wake();
      await t.server.outbox.settle();
      const mail = await smtp.waitFor(user.email);
      expect(mail.link).toMatch(/\/reset-password\?token=/);
      expect(await outboxRowOf(user.email)).toMatchObject({ attempts: 2, sentAt: expect.any(Number), text: null });
    } finally {
      await smtp.close();
    }
  });

  it('sends each mail once when two senders run at the same moment, as two servers without the lock would', async () => {
    const s = await startTestServer();
    try {
      // The server's own worker stays out of it: the two senders below are all there is.
      await s.server.outbox.stop();
      const to = ['one', 'two', 'three'].map((name) => `${name}-${Date.now()}@test.example`);
      for (const address of to) await queueMail(s.server.deps, { to: address, subject: 'Hello', text: 'A mail' });
      const sent = await Promise.all([sendDueMail(s.server.deps), sendDueMail(s.server.deps)]);
      for (const address of to) {
        await s.smtp.waitFor(address);
        expect(s.smtp.to(address)).toHaveLength(1);
      }
      expect(sent[0] + sent[1]).toBe(3);
    } finally {
      await s.close();
    }
  });

  it('doubles the wait after each failure, up to an hour', () => {
    expect([1, 2, 3, 4, 8, 20].map(retryDelayMs)).toEqual([30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  });
});
