import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client';
import { insertSession } from '../features/auth/auth.queries';
import { insertUser } from '../features/users/users.queries';
import { hashToken, randomToken } from '../lib/crypto';

/** A session for an existing user, written straight to the database: its token, for an `sp_session` cookie. */
export async function insertReadySession(db: Db, userId: string, at = Date.now()): Promise<string> {
  const token = randomToken();
  await insertSession(db, {
    tokenHash: hashToken(token),
    userId,
    createdAt: at,
    lastActiveAt: at,
    ip: null,
    userAgent: null,
  });
  return token;
}

/**
 * An active account with a session ready (no password, no sign-in): for tests and benches that start the
 * server after writing the database, or that cannot afford a sign-in per client.
 */
export async function insertSignedInUser(
  db: Db,
  user: { email: string; firstName: string; lastName: string; role: 'staff' | 'admin' },
  at = Date.now(),
): Promise<{ id: string; token: string }> {
  const id = randomUUID();
  await insertUser(db, {
    id,
    ...user,
    passwordHash: null,
    isActive: true,
    pendingApproval: false,
    createdAt: at,
    updatedAt: at,
  });
  return { id, token: await insertReadySession(db, id, at) };
}
