import { createRxDatabase, RXDB_VERSION, type RxDatabase } from 'rxdb';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { afterEach, describe, expect, it } from 'vitest';
import { pushActive$, queuesBusy, RXDB_VERSION_CHECKED, whenIdle } from './rxdb-internals';

type Note = { id: string; text: string };

let database: RxDatabase | null = null;
afterEach(async () => {
  await database?.close();
  database = null;
});

/** One collection replicating with a push handler that holds each push until `release` is called. */
async function replicationWithHeldPush() {
  database = await createRxDatabase({ name: `internals${Date.now()}`, storage: getRxStorageMemory() });
  const { notes } = await database.addCollections({
    notes: {
      schema: {
        version: 0,
        primaryKey: 'id',
        type: 'object',
        properties: { id: { type: 'string', maxLength: 40 }, text: { type: 'string' } },
        required: ['id', 'text'],
      },
    },
  });
  const held: (() => void)[] = [];
  const state: RxReplicationState<Note, number> = replicateRxCollection<Note, number>({
    collection: notes,
    replicationIdentifier: 'internals',
    live: true,
    autoStart: false,
    pull: { handler: async () => ({ documents: [], checkpoint: 0 }) },
    push: {
      handler: async () => {
        await new Promise<void>((resolve) => held.push(resolve));
        return [];
      },
    },
  });
  const release = () => held.splice(0).forEach((resolve) => resolve());
  return { notes, state, release, held };
}

describe('RxDB internals (src/db/sync/rxdb-internals.ts)', () => {
  it('are read from the RxDB version they were checked against: a new version needs each function checked again', () => {
    expect(RXDB_VERSION).toBe(RXDB_VERSION_CHECKED);
  });

  it('say nothing before the replication starts, and idle with empty queues once it has', async () => {
    const { state } = await replicationWithHeldPush();
    expect(pushActive$(state)).toBeUndefined();
    expect(whenIdle(state)).toBeUndefined();
    expect(await queuesBusy(state)).toEqual([]);
    await state.start();
    await state.awaitInitialReplication();
    expect(pushActive$(state)?.getValue()).toBe(false);
    await expect(whenIdle(state)).resolves.toBeUndefined();
    expect(await queuesBusy(state)).toEqual([]);
    await state.cancel();
  });

  it('show a push under way, and idle again once it is answered', async () => {
    const { notes, state, release, held } = await replicationWithHeldPush();
    await state.start();
    await state.awaitInitialReplication();
    await notes.insert({ id: 'n1', text: 'hello' });
    await expect.poll(() => held.length).toBe(1);
    expect(pushActive$(state)?.getValue()).toBe(true);
    expect(await queuesBusy(state)).toContain('pushing');
    let idle = false;
    void whenIdle(state)?.then(() => (idle = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(idle).toBe(false);
    release();
    await expect.poll(() => idle).toBe(true);
    expect(pushActive$(state)?.getValue()).toBe(false);
    await state.cancel();
  });
});
