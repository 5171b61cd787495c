import type { UserDatabase } from '../db/database';

/**
 * Writes the user's acknowledgement document as acknowledged: locally, pushed by replication, so it works offline and
 * is sent once. The server keeps its own time of arrival and `writtenAt`, this moment, bounded (decision 119); on a
 * row that asks for confirmation it is the confirmation (decision 136). An alert and a confirmation write it alike.
 */
export async function writeAcknowledgement(db: UserDatabase, acknowledgementId: string, now = Date.now()) {
  const doc = await db.acknowledgements.findOne(acknowledgementId).exec();
  if (!doc || doc.acknowledgedAt !== null) return;
  await doc.incrementalPatch({
    acknowledgedAt: now,
    writtenAt: now,
    viewedAt: doc.viewedAt ?? now,
    localPending: true,
  });
}

/**
 * Marks the user's mention entries seen (the bell showed them): locally, pushed by replication, so it works offline;
 * the server keeps its own time (decision 144). Entries already seen are left as they are.
 */
export async function markMentionsViewed(db: UserDatabase, ids: readonly string[], now = Date.now()) {
  if (ids.length === 0) return;
  const docs = await db.acknowledgements.findByIds([...ids]).exec();
  for (const doc of docs.values()) {
    if (doc.mention && doc.viewedAt === null) await doc.incrementalPatch({ viewedAt: now, localPending: true });
  }
}
