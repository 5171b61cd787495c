import { preparedFor, statement, type Db } from '../../db/client';
import type { SyncDoc } from './sync.service';

/** How long a device's last accepted state is kept: a push answer lost longer ago than this merges as before. */
export const DEVICE_STATE_DAYS = 30;

/** Written for every accepted pushed post, so prepared once per database (decision 78). */
const rememberStatement = preparedFor((db) =>
  statement(
    db,
    `INSERT INTO sync_device_states (collection, doc_id, user_id, device_id, state, written_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (collection, doc_id, user_id, device_id) DO UPDATE SET state = excluded.state,
       written_at = excluded.written_at`,
  ),
);

/** Remembers the document as a push from this device left it (decision 69). */
export async function rememberDeviceState(
  db: Db,
  key: { collection: string; docId: string; userId: string; deviceId: string },
  state: SyncDoc,
  at: number,
): Promise<void> {
  await rememberStatement(db).run([key.collection, key.docId, key.userId, key.deviceId, JSON.stringify(state), at]);
}

/** The document as this device's last accepted push left it, or null. */
export async function findDeviceState(
  db: Db,
  key: { collection: string; docId: string; userId: string; deviceId: string },
): Promise<SyncDoc | null> {
  const row = (await statement(
    db,
    'SELECT state FROM sync_device_states WHERE collection = ? AND doc_id = ? AND user_id = ? AND device_id = ?',
  ).get([key.collection, key.docId, key.userId, key.deviceId])) as { state: string } | undefined;
  return row ? (JSON.parse(row.state) as SyncDoc) : null;
}

/** Forgets states older than DEVICE_STATE_DAYS; run at start. */
export async function pruneDeviceStates(db: Db, now: number): Promise<number> {
  return statement(db, 'DELETE FROM sync_device_states WHERE written_at < ?').run([
    now - DEVICE_STATE_DAYS * 24 * 60 * 60 * 1000,
  ]);
}
