/**
 * The post composer's draft, kept on the device so it outlives a reload or the app being closed (decision 129).
 * One per user's database name, in localStorage; it goes when the post is sent, and with the rest of the user's
 * local data when their session ends or another user signs in on this device (forgetPostDrafts), so nobody else
 * who uses the device can read it. Files are not kept: a picture chosen again is a tap away.
 */
export interface SavedPostDraft {
  content: string;
  category: string;
  isUrgent: boolean;
  houseTags: string[];
  /** Urgent posts: the houses the alert is addressed to; empty means all staff. */
  audienceHouses: string[];
  /** Who the text mentions (decision 144); a draft kept before mentions has none. */
  mentions?: string[];
}

const PREFIX = 'sp_post_draft|';

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>;

const local = (): Store | null => (globalThis.localStorage as Store | undefined) ?? null;

const strings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The draft kept for a user's database, or null (none, or unreadable). */
export function readPostDraft(databaseName: string, storage = local()): SavedPostDraft | null {
  try {
    const saved: unknown = JSON.parse(storage?.getItem(PREFIX + databaseName) ?? 'null');
    if (typeof saved !== 'object' || saved === null) return null;
    const { content, category, isUrgent, houseTags, audienceHouses, mentions } = saved as Record<string, unknown>;
    if (typeof content !== 'string' || typeof category !== 'string' || typeof isUrgent !== 'boolean') return null;
    if (!strings(houseTags) || !strings(audienceHouses)) return null;
    return { content, category, isUrgent, houseTags, audienceHouses, ...(strings(mentions) ? { mentions } : {}) };
  } catch {
    return null;
  }
}

/** Keeps the draft, or removes it (null: posted, or emptied). Storage that cannot be written loses only the copy. */
export function writePostDraft(databaseName: string, draft: SavedPostDraft | null, storage = local()): void {
  try {
    if (draft === null) storage?.removeItem(PREFIX + databaseName);
    else storage?.setItem(PREFIX + databaseName, JSON.stringify(draft));
  } catch (error) {
    console.warn('Could not keep the post draft', error);
  }
}

/** Removes every user's draft but those of the databases in `keep` (a session's end, another user's sign-in). */
export function forgetPostDrafts(keep: readonly string[] = [], storage = local()): void {
  if (!storage) return;
  try {
    const keys = Array.from({ length: storage.length }, (_, i) => storage.key(i) ?? '');
    for (const key of keys) {
      if (key.startsWith(PREFIX) && !keep.includes(key.slice(PREFIX.length))) storage.removeItem(key);
    }
  } catch (error) {
    console.warn('Could not remove the post drafts', error);
  }
}
