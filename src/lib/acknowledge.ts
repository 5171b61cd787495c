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
