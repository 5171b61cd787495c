/**
 * A change of the user's own that the server's delete won over (decision 117): an edit of a post deleted meanwhile,
 * or a comment or reaction refused because its post is gone. `text` is what the user wrote (the post's content as
 * they left it, the comment) or the reaction's type; it is kept so they can copy it, until they dismiss it.
 */
export interface LostChange {
  kind: 'post' | 'comment' | 'reaction';
  /** The lost document's id. */
  id: string;
  postId: string;
  text: string;
  at: number;
}

/**
 * The lists live in localStorage, one per user's database, so a notice outlives a reload until dismissed; sign-out
 * and another user's sign-in remove them with the rest of the user's data (forgetLostChanges). Without
 * localStorage (tests in node) they live in memory.
 */
const PREFIX = 'sp_lost_changes|';
const memory = new Map<string, string>();
const listeners = new Set<() => void>();

function storage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> & { keys: () => string[] } {
  const local = globalThis.localStorage as Storage | undefined;
  if (!local) {
    return {
      getItem: (key) => memory.get(key) ?? null,
      setItem: (key, value) => void memory.set(key, value),
      removeItem: (key) => void memory.delete(key),
      keys: () => [...memory.keys()],
    };
  }
  return {
    getItem: (key) => local.getItem(key),
    setItem: (key, value) => local.setItem(key, value),
    removeItem: (key) => local.removeItem(key),
    keys: () => Array.from({ length: local.length }, (_, i) => local.key(i) ?? ''),
  };
}

const changed = () => listeners.forEach((listener) => listener());

/** The stored list of a database as its raw text (a stable value for useSyncExternalStore), or null. */
export function lostChangesText(databaseName: string): string | null {
  try {
    return storage().getItem(PREFIX + databaseName);
  } catch {
    return null;
  }
}

/** The changes lost on a database, oldest first. */
export function readLostChanges(databaseName: string): LostChange[] {
  return parseLostChanges(lostChangesText(databaseName));
}

/** A stored list's text as changes; anything unreadable is no list. */
export function parseLostChanges(text: string | null): LostChange[] {
  try {
    const list: unknown = text ? JSON.parse(text) : [];
    return Array.isArray(list) ? (list as LostChange[]) : [];
  } catch {
    return [];
  }
}

function writeLostChanges(databaseName: string, list: LostChange[]): void {
  try {
    if (list.length === 0) storage().removeItem(PREFIX + databaseName);
    else storage().setItem(PREFIX + databaseName, JSON.stringify(list));
  } catch (error) {
    console.warn('Could not keep the list of changes lost to a delete', error);
  }
  changed();
}

/** Adds a lost change to the database's list, once per document. */
export function recordLostChange(databaseName: string, change: LostChange): void {
  const list = readLostChanges(databaseName);
  if (list.some((kept) => kept.kind === change.kind && kept.id === change.id)) return;
  writeLostChanges(databaseName, [...list, change]);
}

/** The user has read what was lost with one post: it goes. */
export function dismissLostChanges(databaseName: string, postId: string): void {
  writeLostChanges(
    databaseName,
    readLostChanges(databaseName).filter((change) => change.postId !== postId),
  );
}

/** Removes every database's list but those named in `keep` (sign-out, another user's sign-in). */
export function forgetLostChanges(keep: readonly string[] = []): void {
  try {
    const store = storage();
    for (const key of store.keys()) {
      if (key.startsWith(PREFIX) && !keep.includes(key.slice(PREFIX.length))) store.removeItem(key);
    }
  } catch (error) {
    console.warn('Could not remove the lists of changes lost to a delete', error);
  }
  changed();
}

/** Calls `listener` when any list changes, in this tab or (through storage events) in another. */
export function subscribeLostChanges(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || event.key.startsWith(PREFIX)) listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}
