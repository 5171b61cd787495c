/**
 * Short lists of things to tell the user, kept in localStorage per user's database until they dismiss them, so a
 * notice outlives a reload: changes a delete won over (decision 117), edits merged with someone else's (decision
 * 120). Sign-out and another user's sign-in remove them with the rest of the user's data (forgetNoticeLists).
 * Without localStorage (tests in node) they live in memory.
 */
const memory = new Map<string, string>();
const listeners = new Set<() => void>();
const prefixes = new Set<string>();

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

/** One kind of list, stored under `prefix` + the database's name. */
export interface NoticeList<T> {
  /** The stored list of a database as its raw text (a stable value for useSyncExternalStore), or null. */
  text: (databaseName: string) => string | null;
  /** A stored list's text as items; anything unreadable is no list. */
  parse: (text: string | null) => T[];
  /** The items of a database, oldest first. */
  read: (databaseName: string) => T[];
  /** Replaces a database's list (an empty one is removed). */
  write: (databaseName: string, list: T[]) => void;
}

export function noticeList<T>(prefix: string): NoticeList<T> {
  prefixes.add(prefix);
  const text = (databaseName: string) => {
    try {
      return storage().getItem(prefix + databaseName);
    } catch {
      return null;
    }
  };
  const parse = (stored: string | null): T[] => {
    try {
      const list: unknown = stored ? JSON.parse(stored) : [];
      return Array.isArray(list) ? (list as T[]) : [];
    } catch {
      return [];
    }
  };
  return {
    text,
    parse,
    read: (databaseName) => parse(text(databaseName)),
    write: (databaseName, list) => {
      try {
        if (list.length === 0) storage().removeItem(prefix + databaseName);
        else storage().setItem(prefix + databaseName, JSON.stringify(list));
      } catch (error) {
        console.warn(`Could not keep the list ${prefix}`, error);
      }
      changed();
    },
  };
}

/** Removes every database's lists but those named in `keep` (sign-out, another user's sign-in). */
export function forgetNoticeLists(keep: readonly string[] = []): void {
  try {
    const store = storage();
    for (const key of store.keys()) {
      const prefix = [...prefixes].find((p) => key.startsWith(p));
      if (prefix && !keep.includes(key.slice(prefix.length))) store.removeItem(key);
    }
  } catch (error) {
    console.warn('Could not remove the notice lists', error);
  }
  changed();
}

/** Calls `listener` when any list changes, in this tab or (through storage events) in another. */
export function subscribeNoticeLists(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === null || [...prefixes].some((prefix) => event.key!.startsWith(prefix))) listener();
  };
  globalThis.addEventListener?.('storage', onStorage);
  return () => {
    listeners.delete(listener);
    globalThis.removeEventListener?.('storage', onStorage);
  };
}
