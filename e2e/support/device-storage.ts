import type { Page } from 'playwright-core';

/**
 * What the device still holds that anyone could read after a session ends (decision 114): the names of the user stores
 * and of the database of files waiting to be sent, and the kept entries' bytes, which must show none of the user's words.
 */
export async function readableOnDevice(page: Page): Promise<{ stores: string[]; kept: string }> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((info) => info.name ?? '');
    const kept = await new Promise<string>((resolve) => {
      if (!names.includes('sp_kept')) return resolve('');
      const open = indexedDB.open('sp_kept');
      open.onsuccess = () => {
        const all = open.result.transaction('entries').objectStore('entries').getAll();
        all.onsuccess = () => {
          const text = (all.result as { data: ArrayBuffer }[])
            .map((entry) => new TextDecoder().decode(entry.data))
            .join('');
          open.result.close();
          resolve(text);
        };
      };
    });
    return { stores: names.filter((name) => name.startsWith('rxdb-dexie-sp_') || name === 'sp_pending_files'), kept };
  });
}
