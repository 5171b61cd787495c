import 'fake-indexeddb/auto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import {
  createRevision,
  fillWithDefaultSettings,
  getRxReplicationMetaInstanceSchema,
  now,
  type RxJsonSchema,
  type RxStorageInstance,
} from 'rxdb';
import { afterEach, describe, expect, it } from 'vitest';
import { dexieStorage } from '../dexie-storage';
import { REPLICATION_META_PREFIX } from './quiet-meta';

const docsSchema = fillWithDefaultSettings({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 100 }, text: { type: 'string' } },
  required: ['id'],
} as RxJsonSchema<{ id: string; text?: string }>);
const metaSchema = getRxReplicationMetaInstanceSchema(docsSchema, false);

type Instance = RxStorageInstance<Record<string, unknown>, unknown, unknown>;
const opened: Instance[] = [];

afterEach(async () => {
  for (const instance of opened.splice(0)) await instance.close();
  await Promise.all((await indexedDB.databases()).map((info) => indexedDB.deleteDatabase(info.name!)));
});

/** One tab's storage instance of a collection; two calls are two tabs on the same IndexedDB. */
async function openInstance(collectionName: string, schema: object): Promise<Instance> {
  const instance = (await dexieStorage({ indexedDB, IDBKeyRange }).createStorageInstance({
    databaseName: 'quiet',
    collectionName,
    schema: schema as never,
    options: {},
    multiInstance: true,
    devMode: false,
    databaseInstanceToken: Math.random().toString(36),
  })) as unknown as Instance;
  opened.push(instance);
  return instance;
}

function write(instance: Instance, document: Record<string, unknown>) {
  const data = { ...document, _deleted: false, _attachments: {}, _meta: { lwt: now() } };
  return instance.bulkWrite([{ document: { ...data, _rev: createRevision('tab', undefined) } as never }], 'test');
}

/** Events each instance reports, within a short time for other tabs' broadcasts to arrive. */
async function eventsSeen(instances: Instance[], act: () => Promise<unknown>): Promise<number[]> {
  const counts = instances.map(() => 0);
  const subscriptions = instances.map((instance, i) =>
    instance.changeStream().subscribe((bulk) => (counts[i] += bulk.events.length)),
  );
  await act();
  await new Promise((resolve) => setTimeout(resolve, 300));
  subscriptions.forEach((subscription) => subscription.unsubscribe());
  return counts;
}

describe('replication meta that tells no one of its writes (decision 93)', () => {
  it('reports a document write to its own page and to another tab', async () => {
    const [tabA, tabB] = [await openInstance('posts', docsSchema), await openInstance('posts', docsSchema)];
    expect(await eventsSeen([tabA, tabB], () => write(tabA, { id: 'p1', text: 'Hello' }))).toEqual([1, 1]);
  });

  it('reports a replication meta write to no one, and still stores and reads it', async () => {
    const name = `${REPLICATION_META_PREFIX}posts`;
    const [tabA, tabB] = [await openInstance(name, metaSchema), await openInstance(name, metaSchema)];
    const meta = { id: 'p1|0', itemId: 'p1', isCheckpoint: '0', checkpointData: undefined, docData: { id: 'p1' } };
    expect(await eventsSeen([tabA, tabB], () => write(tabA, meta))).toEqual([0, 0]);
    const [stored] = await tabB.findDocumentsById(['p1|0'], false);
    expect(stored).toMatchObject({ itemId: 'p1', docData: { id: 'p1' } });
  });
});
