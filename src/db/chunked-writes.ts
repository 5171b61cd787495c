import type { RxStorage } from 'rxdb';

/** Documents written per IndexedDB transaction at most, before the browser gets the main thread back. */
export const WRITE_CHUNK = 25;

/** Lets the browser paint and handle input before the next chunk (scheduler.yield where the browser has it). */
function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (scheduler?.yield) return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Wraps a storage so a large bulk write (a pulled page of up to 1,000 documents, and its replication meta)
 * goes to IndexedDB in chunks of `chunk` documents, giving the main thread back between them. The browser
 * serialises every document on the main thread as it is put, so one big write blocked taps and scrolling for
 * hundreds of milliseconds on a phone during a first sync (decision 71). Each document's write still succeeds
 * or fails on its own, as before; only the grouping into transactions changes.
 */
export function chunkedWrites<Internals, Settings>(
  storage: RxStorage<Internals, Settings>,
  chunk = WRITE_CHUNK,
): RxStorage<Internals, Settings> {
  return {
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      const bulkWrite = instance.bulkWrite.bind(instance);
      instance.bulkWrite = async (rows, context) => {
        if (rows.length <= chunk) return bulkWrite(rows, context);
        const result: Awaited<ReturnType<typeof bulkWrite>> = { error: [] };
        for (let start = 0; start < rows.length; start += chunk) {
          if (start > 0) await yieldToMain();
          const { error } = await bulkWrite(rows.slice(start, start + chunk), context);
          result.error.push(...error);
        }
        return result;
      };
      return instance;
    },
  };
}
