import { Dexie, type EntityTable } from 'dexie';
import { KEPT_CHANGED_EVENT, KEPT_DB } from '../../schema/offline';
import { KEPT_MAX_AGE_MS, keptLabel } from '../../schema/kept-rules';

/**
 * Work kept on this device after its session ended (docs/sync.md, "Kept work"; decision 114). Each entry is one
 * sealing: the unsent items, encrypted with a random AES key that is itself wrapped with the server's public key
 * under a label naming the user and the time. The device cannot read an entry; only the server can unwrap its key,
 * and only for that user's session. Who it belongs to and how many items it holds stay readable, for the sign-in
 * screen and for the expiry.
 */
export interface KeptEntry {
  id: string;
  userId: string;
  sealedAt: number;
  /** Items the user wrote (posts, comments, reactions, messages...), as the sign-in screen counts them. */
  count: number;
  wrappedKey: string;
  iv: string;
  data: ArrayBuffer;
}

class KeptDatabase extends Dexie {
  entries!: EntityTable<KeptEntry, 'id'>;
  constructor(env: KeptEnvironment) {
    super(KEPT_DB, env);
    this.version(1).stores({ entries: 'id, userId, sealedAt' });
  }
}

/** Where the entries live: the browser's IndexedDB unless a test passes fake-indexeddb. */
export interface KeptEnvironment {
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

let database: KeptDatabase | null = null;
let environment: KeptEnvironment = {};

/** Tests run on fake-indexeddb. */
export function setKeptEnvironment(env: KeptEnvironment): void {
  database?.close();
  database = null;
  environment = env;
}

/** Whether the store exists: listing must not create it, so a device that never kept anything stays empty. */
async function exists(): Promise<boolean> {
  if (database?.isOpen()) return true;
  const factory = environment.indexedDB ?? globalThis.indexedDB;
  if (!factory) return false;
  if (typeof factory.databases !== 'function') return true;
  return (await factory.databases()).some((info) => info.name === KEPT_DB);
}

function open(): KeptDatabase {
  database ??= new KeptDatabase(environment);
  return database;
}

function announce(): void {
  globalThis.dispatchEvent?.(new Event(KEPT_CHANGED_EVENT));
}

export async function putKeptEntry(entry: KeptEntry): Promise<void> {
  await open().entries.put(entry);
  announce();
}

export async function deleteKeptEntry(id: string): Promise<void> {
  if (!(await exists())) return;
  await open().entries.delete(id);
  announce();
}

/**
 * Entries still within KEPT_DAYS, oldest first, of one user or of everyone; older ones are removed on the way, as
 * the server would refuse to unwrap them anyway.
 */
export async function listKeptEntries(userId?: string, now = Date.now()): Promise<KeptEntry[]> {
  if (!(await exists())) return [];
  const entries = open().entries;
  await entries
    .where('sealedAt')
    .below(now - KEPT_MAX_AGE_MS)
    .delete();
  const live = userId ? await entries.where('userId').equals(userId).toArray() : await entries.toArray();
  return live.sort((a, b) => a.sealedAt - b.sealedAt);
}

/** How many items are kept on this device, for whoever signs in next. */
export async function countKeptItems(now = Date.now()): Promise<number> {
  return (await listKeptEntries(undefined, now)).reduce((sum, entry) => sum + entry.count, 0);
}

const toBase64 = (bytes: ArrayBuffer | Uint8Array): string => {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let text = '';
  for (let i = 0; i < view.length; i += 0x8000) text += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(text);
};
const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** Seals a payload for a user with the server's public key (SPKI, base64), as an entry ready to store. */
export async function sealForUser(
  userId: string,
  publicKey: string,
  payload: unknown,
  count: number,
  sealedAt = Date.now(),
): Promise<KeptEntry> {
  const label = new TextEncoder().encode(keptLabel(userId, sealedAt));
  const rsa = await crypto.subtle.importKey(
    'spki',
    fromBase64(publicKey),
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    false,
    ['encrypt'],
  );
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const aes = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(payload));
  const data = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: label }, aes, plain);
  const wrappedKey = await crypto.subtle.encrypt({ name: 'RSA-OAEP', label }, rsa, raw);
  raw.fill(0);
  return {
    id: crypto.randomUUID(),
    userId,
    sealedAt,
    count,
    wrappedKey: toBase64(wrappedKey),
    iv: toBase64(iv),
    data,
  };
}

/** Opens an entry with the key the server unwrapped for it (base64); throws if it was tampered with. */
export async function openEntry(entry: KeptEntry, key: string): Promise<unknown> {
  const label = new TextEncoder().encode(keptLabel(entry.userId, entry.sealedAt));
  const aes = await crypto.subtle.importKey('raw', fromBase64(key), 'AES-GCM', false, ['decrypt']);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64(entry.iv), additionalData: label },
    aes,
    entry.data,
  );
  return JSON.parse(new TextDecoder().decode(plain)) as unknown;
}

/** A blob as text that survives JSON, and back (waiting posts' files travel inside a sealed payload). */
export async function blobToBase64(blob: Blob): Promise<string> {
  return toBase64(await blob.arrayBuffer());
}

export function base64ToBlob(text: string, type: string): Blob {
  return new Blob([fromBase64(text)], { type });
}
