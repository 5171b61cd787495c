import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { settings } from '../../db/tables';

const PUBLIC_KEY = 'kept_public_key';
const PRIVATE_KEY = 'kept_private_key';

export interface KeptKeyPair {
  publicKey: string;
  privateKey: string;
}

/** The server's key pair for kept work, if one was made. */
export function findKeptKeyPair(db: Db): KeptKeyPair | null {
  const read = (key: string) => db.select().from(settings).where(eq(settings.key, key)).get()?.value;
  const publicKey = read(PUBLIC_KEY);
  const privateKey = read(PRIVATE_KEY);
  return publicKey && privateKey ? { publicKey, privateKey } : null;
}

/** Stores a key pair unless one is there already (two servers starting at once keep the first). */
export function insertKeptKeyPairIfAbsent(db: Db, pair: KeptKeyPair): void {
  db.transaction(() => {
    if (findKeptKeyPair(db)) return;
    db.insert(settings).values({ key: PUBLIC_KEY, value: pair.publicKey }).onConflictDoNothing().run();
    db.insert(settings).values({ key: PRIVATE_KEY, value: pair.privateKey }).onConflictDoNothing().run();
  });
}
