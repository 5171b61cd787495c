import { and, asc, eq, isNotNull, isNull, lt, lte, min, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { mailOutbox } from '../../db/tables';

export type MailRow = typeof mailOutbox.$inferSelect;

/** A mail still to send: not sent, and its body not erased by giving up. */
const pending = and(isNull(mailOutbox.sentAt), isNotNull(mailOutbox.text));

/** Adds a mail to the outbox, due at once; answers its id. */
export async function insertMail(
  db: Db,
  row: { to: string; subject: string; text: string; at: number },
): Promise<number> {
  return (
    await db
      .insert(mailOutbox)
      .values({ to: row.to, subject: row.subject, text: row.text, createdAt: row.at, nextAttemptAt: row.at })
      .returning({ id: mailOutbox.id })
      .get()
  ).id;
}

/** The mails due by `at`, oldest due first. */
export async function listDueMail(db: Db, at: number, limit: number): Promise<MailRow[]> {
  return await db
    .select()
    .from(mailOutbox)
    .where(and(pending, lte(mailOutbox.nextAttemptAt, at)))
    .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
    .limit(limit)
    .all();
}

/**
 * Takes a listed mail for sending: still pending and due as it was read, it is put off until `until`, so no other
 * sender lists it meanwhile; false when another sender took it first (or sent or gave it up).
 */
export async function claimMail(db: Db, mail: Pick<MailRow, 'id' | 'nextAttemptAt'>, until: number): Promise<boolean> {
  const result = await db
    .update(mailOutbox)
    .set({ nextAttemptAt: until })
    .where(and(eq(mailOutbox.id, mail.id), eq(mailOutbox.nextAttemptAt, mail.nextAttemptAt), pending))
    .run();
  return result.changes === 1;
}

/** When the next pending mail is due, or null when none waits. */
export async function findNextMailDueAt(db: Db): Promise<number | null> {
  return (
    (
      await db
        .select({ at: min(mailOutbox.nextAttemptAt) })
        .from(mailOutbox)
        .where(pending)
        .get()
    )?.at ?? null
  );
}

/** Marks a mail sent and erases its body, which may hold a live link. */
export async function markMailSent(db: Db, id: number, at: number): Promise<void> {
  await db
    .update(mailOutbox)
    .set({ sentAt: at, text: null, attempts: sql`${mailOutbox.attempts} + 1`, lastError: null })
    .where(eq(mailOutbox.id, id))
    .run();
}

/** Records a failed attempt; a mail given up loses its body and is never tried again. */
export async function markMailFailed(
  db: Db,
  id: number,
  failure: { attempts: number; nextAttemptAt: number; lastError: string; giveUp: boolean },
): Promise<void> {
  await db
    .update(mailOutbox)
    .set({
      attempts: failure.attempts,
      nextAttemptAt: failure.nextAttemptAt,
      lastError: failure.lastError,
      ...(failure.giveUp ? { text: null } : {}),
    })
    .where(eq(mailOutbox.id, id))
    .run();
}

/** Forgets mails finished (sent or given up) before `before`. */
export async function deleteFinishedMailBefore(db: Db, before: number): Promise<void> {
  await db
    .delete(mailOutbox)
    .where(and(lt(mailOutbox.createdAt, before), or(isNotNull(mailOutbox.sentAt), isNull(mailOutbox.text))))
    .run();
}
