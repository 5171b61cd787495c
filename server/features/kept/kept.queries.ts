import { eq } from 'drizzle-orm';
import { Db, transaction } from '../../db/client';
import { settings } from '../../db/tables';

const PUBLIC_KEY = 'kept_public_key';
const PRIVATE_KEY = 'kept_private_key';

export interface KeptKeyPair {
  publicKey: string;
  privateKey: string;
}

/** The server's key pair for kept work, if one was made. */
export async function findKeptKeyPair(db: Db): Promise<KeptKeyPair | null> {
  const read = async (key: string) => (await db.select().from(settings).where(eq(settings.key, key)).get())?.value;
  const publicKey = await read(PUBLIC_KEY);
  const privateKey = await read(PRIVATE_KEY);
  return publicKey && privateKey ? { publicKey, privateKey } : null;
}

/** Stores a key pair unless one is there already (two servers starting at once keep the first). */
export async function insertKeptKeyPairIfAbsent(db: Db, pair: KeptKeyPair): Promise<void> {
  await transaction(db, async (db) => {
    if (await findKeptKeyPair(db)) return;
    await db.insert(settings).values({ key: PUBLIC_KEY, value: pair.publicKey }).onConflictDoNothing().run();
    await db.insert(settings).values({ key: PRIVATE_KEY, value: pair.privateKey }).onConflictDoNothing().run();
  });
}
