import { addRxPlugin, createRxDatabase, type RxDatabase } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { afterEach, describe, expect, it } from 'vitest';
import { SYNCED_COLLECTIONS } from './collections';
import { brokenStarter, InProcessWorker, recordingStarter } from './in-process-worker';
import { colleague, storedPost } from './test-fixtures';
import { workerStorage, type WorkerLike } from './worker-storage';

const post = storedPost({ id: 'post-1' });

addRxPlugin(RxDBMigrationSchemaPlugin);
const { users, posts } = SYNCED_COLLECTIONS;

let names = 0;
const open: RxDatabase[] = [];

async function database(start: () => WorkerLike) {
  const db = await createRxDatabase({
    name: `worker-storage-${++names}`,
    storage: workerStorage(start),
    multiInstance: false,
  });
  open.push(db);
  return db;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => (db.closed ? undefined : db.close())));
});

describe('local database in a storage worker', () => {
  it('stores, finds and keeps documents across a reopen, and stops its workers when closed', async () => {
    const { workers, start } = recordingStarter();
    const first = await database(start);
    await first.addCollections({ users, posts });
    await first.users.insert(colleague);
    await first.posts.insert(post);
    await first.posts.findOne('post-1').incrementalPatch({ content: 'Fire drill moved to 4pm' });
    const name = first.name;
    await first.close();
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.every((worker) => worker.terminated)).toBe(true);

    const again = await createRxDatabase({ name, storage: workerStorage(start), multiInstance: false });
    open.push(again);
    await again.addCollections({ users, posts });
    expect((await again.users.findOne('user-2').exec())?.firstName).toBe('Ada');
    const found = await again.posts.find({ sort: [{ createdAt: 'desc' }] }).exec();
    expect(found.map((doc) => doc.content)).toEqual(['Fire drill moved to 4pm']);
    expect(workers.flatMap((worker) => worker.methods)).toContain('bulkWrite');
  });

  it('fails to open with a clear error when the worker cannot start, instead of waiting for ever', async () => {
    await expect(database(brokenStarter())).rejects.toThrow(
      /local database worker stopped.*Failed to fetch the worker script/s,
    );
  });

  it('fails a write the worker never answers when it crashes, and the next one at once', async () => {
    let worker: InProcessWorker | undefined;
    const db = await database(() => (worker = new InProcessWorker()));
    await db.addCollections({ users });
    // The worker goes quiet, then stops: the write sent meanwhile gets an answer from the page.
    const quiet = worker as InProcessWorker;
    quiet.postMessage = (message) => {
      quiet.methods.push(message.method);
    };
    const write = db.users.insert(colleague);
    setTimeout(() => quiet.crash('out of memory'), 20);
    await expect(write).rejects.toThrow(/local database worker stopped: out of memory/);
    await expect(db.users.insert({ ...colleague, id: 'user-3' })).rejects.toThrow(/local database worker stopped/);
  });
});
