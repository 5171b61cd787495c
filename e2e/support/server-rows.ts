import path from 'node:path';
import Database from 'better-sqlite3';
import { E2E_DATA_DIR } from '../env';

/** The server's own record, read from its database file: what a journey asserts the server finally holds. */
export function serverRows(sql: string, args: unknown[] = [], dataDir = E2E_DATA_DIR): Record<string, unknown>[] {
  const db = new Database(path.join(dataDir, 'staff-portal.db'), { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare(sql).all(...args) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
