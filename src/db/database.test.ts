import 'fake-indexeddb/auto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { createRxDatabase, getPrimaryKeyOfInternalDocument, INTERNAL_CONTEXT_COLLECTION } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeUserDatabase,
  databaseNameFor,
  destroyUserDatabase,
  getUserDatabase,
  openUserDatabase,
  type DatabaseEnvironment,
} from './database';
import {
  acknowledgementsSchema,
  commentsSchema,
  conversationsSchema,
  messagesSchema,
  postsSchema,
  reactionsSchema,
  residentViewsSchema,
  usersSchema,
} from './collections';
import { brokenStarter, recordingStarter } from './in-process-worker';
import { colleague } from './test-fixtures';

const env: DatabaseEnvironment = { indexedDB, IDBKeyRange, multiInstance: false };

/** A schema as an older version stored it: that version's number, without the fields added since. */
function olderSchema<T extends { properties: object; required?: readonly string[] }>(
  schema: T,
  version: number,
  ...fields: string[]
) {
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([field]) => !fields.includes(field)));
  return { ...schema, version, properties, required: schema.required?.filter((f) => !fields.includes(f)) };
}

/** The fields posts gained in version 5 (decision 137). */
const CONFIRMATION = ['requiresConfirmation', 'confirmBy'];
/** The field posts gained in version 6 (decision 141). */
const SCHEDULE = ['publishAt'];

/** A post as an older version stored it (before `reactions` and `writtenAt`). */
const olderPost = {
  authorId: 'user-fold',
  content: 'Stored by the previous version',
  category: 'company_announcement',
  isUrgent: false,
  houseTags: [],
  audienceHouses: [],
  images: [],
  attachments: [],
  createdAt: 1,
  updatedAt: 1,
};

/** A fresh RxDB database under a user's local database name, to store documents as an older version did. */
async function olderDatabase(userId: string) {
  // dev-mode (loaded by the first open) wants a validator around the storage.
  const storage = wrappedValidateAjvStorage({ storage: getRxStorageDexie({ indexedDB, IDBKeyRange }) });
  return createRxDatabase({ name: databaseNameFor(userId), storage, multiInstance: false });
}

async function indexedDatabaseNames(): Promise<string[]> {
  return (await indexedDB.databases()).map((info) => info.name ?? '');
}

afterEach(async () => {
  await destroyUserDatabase(env);
});

describe('user database', () => {
  it('derives a valid RxDB name from any user id', () => {
    const name = databaseNameFor('0f8c7e52-Ab12-4c3d-9e8f-UPPER case');
    expect(name).toMatch(/^[a-z][_$a-z0-9-]*$/);
    expect(name.startsWith('sp_')).toBe(true);
    expect(databaseNameFor('a')).not.toBe(databaseNameFor('b'));
  });

  it('keeps documents across close and reopen, and leaves nothing behind once destroyed', async () => {
    const db = await openUserDatabase('user-1', env);
    await db.users.insert(colleague);
    await closeUserDatabase();
    expect(getUserDatabase()).toBeNull();

    const reopened = await openUserDatabase('user-1', env);
    const found = await reopened.users.findOne('user-2').exec();
    expect(found?.toJSON()).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', profileImageUrl: null });

    const prefix = `rxdb-dexie-${databaseNameFor('user-1')}--`;
    expect((await indexedDatabaseNames()).some((name) => name.startsWith(prefix))).toBe(true);

    await destroyUserDatabase(env);
    expect(getUserDatabase()).toBeNull();
    expect((await indexedDatabaseNames()).filter((name) => name.startsWith(prefix))).toEqual([]);
  });

  it('keeps handover notes and leaves nothing of them in IndexedDB once destroyed at sign-out (decision 140)', async () => {
    const db = await openUserDatabase('user-1', env);
    await db.handovers.insert({
      id: 'note-1',
      house: 'Giles House',
      shift: 'Night',
      authorId: 'user-1',
      content: 'Mary had a fall at 3am, no injury',
      residentIds: [],
      createdAt: 1,
      writtenAt: 1,
      updatedAt: 1,
      correctedAt: null,
      addenda: [],
      reads: [],
      readAt: null,
      hidden: false,
      localPending: true,
    });
    const prefix = `rxdb-dexie-${databaseNameFor('user-1')}--`;
    expect((await indexedDatabaseNames()).some((name) => name.startsWith(prefix) && name.includes('handovers'))).toBe(
      true,
    );

    await destroyUserDatabase(env);
    expect((await indexedDatabaseNames()).filter((name) => name.startsWith(prefix))).toEqual([]);
    const reopened = await openUserDatabase('user-1', env);
    expect(await reopened.handovers.count().exec()).toBe(0);
  });

  it('opens a store whose schemas an earlier build hashed from keys in another order (decision 109)', async () => {
    const db = await openUserDatabase('user-1', env);
    await db.users.insert(colleague);
    // What a build that ordered schema keys with the browser's collator stored: the same schemas, other hashes.
    const ids = Object.values(db.collections).map((collection) =>
      getPrimaryKeyOfInternalDocument(`${collection.name}-${collection.schema.version}`, INTERNAL_CONTEXT_COLLECTION),
    );
    const stored = await db.internalStore.findDocumentsById(ids, false);
    expect(stored).toHaveLength(ids.length);
    const rewritten = await db.internalStore.bulkWrite(
      stored.map((doc) => ({
        previous: doc,
        document: { ...doc, data: { ...doc.data, schemaHash: `earlier-${String(doc.data.schemaHash)}` } },
      })),
      'test-earlier-build',
    );
    expect(rewritten.error).toEqual([]);
    await closeUserDatabase();

    const reopened = await openUserDatabase('user-1', env);
    expect((await reopened.users.findOne('user-2').exec())?.get('firstName')).toBe('Ada');
  });

  it('returns the same database when the same user opens it twice', async () => {
    const [a, b] = await Promise.all([openUserDatabase('user-1', env), openUserDatabase('user-1', env)]);
    expect(a).toBe(b);
  });

  it("wipes another user's leftover data when a different user signs in", async () => {
    const first = await openUserDatabase('user-1', env);
    await first.users.insert(colleague);
    await closeUserDatabase();

    const second = await openUserDatabase('user-3', env);
    expect(await second.users.count().exec()).toBe(0);
    const names = await indexedDatabaseNames();
    expect(names.filter((name) => name.startsWith(`rxdb-dexie-${databaseNameFor('user-1')}--`))).toEqual([]);
    expect(names.some((name) => name.startsWith(`rxdb-dexie-${databaseNameFor('user-3')}--`))).toBe(true);
  });
});

describe('user database in its storage worker', () => {
  it('opens, stores and is destroyed on sign-out through the worker, which then stops', async () => {
    const { workers, start } = recordingStarter();
    const db = await openUserDatabase('user-1', { ...env, worker: start });
    await db.users.insert(colleague);
    expect(workers.length).toBe(1);
    expect(workers[0].methods).toContain('bulkWrite');

    await destroyUserDatabase(env);
    expect(workers[0].terminated).toBe(true);
    const prefix = `rxdb-dexie-${databaseNameFor('user-1')}--`;
    expect((await indexedDatabaseNames()).filter((name) => name.startsWith(prefix))).toEqual([]);
  });

  it('runs the database in the page when its worker cannot start', async () => {
    const warnings: unknown[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args[0]);
    try {
      const db = await openUserDatabase('user-1', { ...env, worker: brokenStarter() });
      await db.users.insert(colleague);
      expect((await db.users.findOne('user-2').exec())?.lastName).toBe('Lovelace');
    } finally {
      console.warn = warn;
    }
    expect(warnings).toEqual(['The local database runs in the page: its worker did not start']);
  });
});

describe('schema migration', () => {
  it('gives posts and colleagues stored under schema version 0 empty audience and house lists', async () => {
    const old = await olderDatabase('user-migrate');
    await old.addCollections({
      posts: {
        schema: olderSchema(
          postsSchema,
          0,
          'audienceHouses',
          'writtenAt',
          'editedBy',
          ...CONFIRMATION,
          ...SCHEDULE,
        ) as never,
      },
      users: { schema: olderSchema(usersSchema, 0, 'houses', 'type') as never },
    });
    // Not yet sent: posts the server already has are pulled again after a version change (decision 74).
    await old.posts.insert({
      id: 'post-1',
      authorId: null,
      content: 'Written by an older version',
      category: 'company_announcement',
      isUrgent: false,
      houseTags: [],
      images: [],
      attachments: [],
      createdAt: 1,
      updatedAt: 1,
      localPending: true,
    });
    const { houses, type, ...oldColleague } = colleague;
    void [houses, type];
    await old.users.insert(oldColleague);
    await old.close();

    const db = await openUserDatabase('user-migrate', env);
    expect((await db.posts.findOne('post-1').exec())?.audienceHouses).toEqual([]);
    expect((await db.users.findOne('user-2').exec())?.houses).toEqual([]);
  });

  it('keeps colleagues stored under version 1 readable offline, as employees until the re-pull (decision 147)', async () => {
    const old = await olderDatabase('user-types');
    await old.addCollections({
      users: {
        schema: olderSchema(usersSchema, 1, 'type') as never,
        migrationStrategies: { 1: (doc: unknown) => doc },
      },
    });
    const { type, ...oldColleague } = colleague;
    void type;
    await old.users.insert(oldColleague);
    await old.close();

    const db = await openUserDatabase('user-types', env);
    expect((await db.users.findOne('user-2').exec())?.toJSON()).toMatchObject({ firstName: 'Ada', type: 'employee' });
  });

  it('keeps only unsent posts and reactions from before reactions moved onto the posts; the rest is pulled again', async () => {
    const old = await olderDatabase('user-fold');
    await old.addCollections({
      posts: {
        schema: olderSchema(
          postsSchema,
          1,
          'reactions',
          'writtenAt',
          'editedBy',
          ...CONFIRMATION,
          ...SCHEDULE,
        ) as never,
        migrationStrategies: { 1: (doc: unknown) => doc },
      },
      reactions: { schema: { ...reactionsSchema, version: 0 } as never },
    });
    const post = olderPost;
    await old.posts.bulkInsert([
      { ...post, id: 'synced', localPending: false },
      { ...post, id: 'unsent', localPending: true },
    ]);
    const reaction = { postId: 'synced', type: 'like', createdAt: 1, updatedAt: 1 };
    await old.reactions.bulkInsert([
      { ...reaction, id: 'synced:someone-else', userId: 'someone-else', localPending: false },
      { ...reaction, id: 'synced:user-fold', userId: 'user-fold', localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-fold', env);
    expect((await db.posts.find().exec()).map((doc) => doc.id)).toEqual(['unsent']);
    expect((await db.reactions.find().exec()).map((doc) => [doc.id, doc.localPending])).toEqual([
      ['synced:user-fold', true],
    ]);
  });

  it('gives unsent posts, comments, messages and acknowledgements their local time as written; the rest is pulled again', async () => {
    const old = await olderDatabase('user-written');
    const identity = (doc: unknown) => doc;
    await old.addCollections({
      posts: {
        schema: olderSchema(postsSchema, 2, 'writtenAt', 'editedBy', ...CONFIRMATION, ...SCHEDULE) as never,
        migrationStrategies: { 1: identity, 2: identity },
      },
      comments: { schema: olderSchema(commentsSchema, 0, 'writtenAt') as never },
      messages: { schema: olderSchema(messagesSchema, 0, 'writtenAt') as never },
      acknowledgements: { schema: olderSchema(acknowledgementsSchema, 0, 'writtenAt') as never },
    });
    const post = { ...olderPost, reactions: {}, createdAt: 1_700_000_000_001, updatedAt: 1_700_000_000_001 };
    await old.posts.bulkInsert([
      { ...post, id: 'synced', localPending: false },
      { ...post, id: 'unsent', localPending: true },
    ]);
    const comment = { postId: 'synced', authorId: 'user-written', content: 'Yes', updatedAt: 1_700_000_000_002 };
    await old.comments.bulkInsert([
      { ...comment, id: 'synced', createdAt: 1_700_000_000_002, localPending: false },
      { ...comment, id: 'unsent', createdAt: 1_700_000_000_003, localPending: true },
    ]);
    const message = { conversationId: 'a:b', senderId: 'user-written', content: 'On my way' };
    await old.messages.bulkInsert([
      { ...message, id: 'synced', createdAt: 1_700_000_000_004, localPending: false },
      { ...message, id: 'unsent', createdAt: 1_700_000_000_005, localPending: true },
    ]);
    const ack = { userId: 'user-written', createdAt: 1_700_000_000_000, viewedAt: null };
    await old.acknowledgements.bulkInsert([
      { ...ack, id: 'synced', postId: 'p1', acknowledgedAt: null, localPending: false },
      { ...ack, id: 'acknowledged', postId: 'p2', acknowledgedAt: 1_700_000_000_006, localPending: true },
      { ...ack, id: 'viewed', postId: 'p3', acknowledgedAt: null, localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-written', env);
    const written = async (collection: 'posts' | 'comments' | 'messages' | 'acknowledgements') =>
      (await db[collection].find().exec()).map((doc) => [doc.id, doc.writtenAt]);
    expect(await written('posts')).toEqual([['unsent', 1_700_000_000_001]]);
    expect(await written('comments')).toEqual([['unsent', 1_700_000_000_003]]);
    expect(await written('messages')).toEqual([['unsent', 1_700_000_000_005]]);
    expect(await written('acknowledgements')).toEqual([
      ['acknowledged', 1_700_000_000_006],
      ['viewed', null],
    ]);
  });

  it('gives unsent posts no editor from before posts named who else edited them; the rest is pulled again', async () => {
    const old = await olderDatabase('user-edited');
    const identity = (doc: unknown) => doc;
    await old.addCollections({
      posts: {
        schema: olderSchema(postsSchema, 3, 'editedBy', ...CONFIRMATION, ...SCHEDULE) as never,
        migrationStrategies: { 1: identity, 2: identity, 3: identity },
      },
    });
    const post = { ...olderPost, reactions: {}, writtenAt: 1 };
    await old.posts.bulkInsert([
      { ...post, id: 'synced', localPending: false },
      { ...post, id: 'unsent', localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-edited', env);
    expect((await db.posts.find().exec()).map((doc) => [doc.id, doc.editedBy])).toEqual([['unsent', null]]);
  });

  it('keeps unsent posts without a confirmation from before posts carried one; the rest is pulled again', async () => {
    const old = await olderDatabase('user-confirm');
    const identity = (doc: unknown) => doc;
    await old.addCollections({
      posts: {
        schema: olderSchema(postsSchema, 4, ...CONFIRMATION, ...SCHEDULE) as never,
        migrationStrategies: { 1: identity, 2: identity, 3: identity, 4: identity },
      },
    });
    const post = { ...olderPost, reactions: {}, writtenAt: 1, editedBy: null };
    await old.posts.bulkInsert([
      { ...post, id: 'synced', localPending: false },
      { ...post, id: 'unsent', localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-confirm', env);
    const posts = (await db.posts.find().exec()).map((doc) => doc.toMutableJSON());
    expect(posts.map((doc) => doc.id)).toEqual(['unsent']);
    // Left out, so its push leaves them as the server has them (decision 137).
    expect('requiresConfirmation' in posts[0] || 'confirmBy' in posts[0]).toBe(false);
  });

  it('keeps an unsent one-to-one chat or read mark from before groups, as the pair’s direct chat; the rest is pulled again', async () => {
    const old = await olderDatabase('user-groups');
    const GROUPS = ['kind', 'name', 'house', 'memberIds', 'createdBy', 'readMarks', 'muted'];
    await old.addCollections({ conversations: { schema: olderSchema(conversationsSchema, 0, ...GROUPS) as never } });
    const conversation = { readUpTo: 5, otherReadUpTo: 0, lastMessageAt: null, createdAt: 1, updatedAt: 1 };
    await old.conversations.bulkInsert([
      { ...conversation, id: 'a:synced', otherUserId: 'synced', localPending: false },
      { ...conversation, id: 'a:unsent', otherUserId: 'unsent', localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-groups', env);
    const docs = (await db.conversations.find().exec()).map((doc) => doc.toMutableJSON());
    expect(docs).toEqual([
      {
        ...conversation,
        id: 'a:unsent',
        otherUserId: 'unsent',
        kind: 'direct',
        name: null,
        house: null,
        memberIds: ['a', 'unsent'],
        createdBy: null,
        readMarks: {},
        muted: false,
        localPending: true,
      },
    ]);
  });

  it('keeps unsent posts from before posts could be scheduled; the rest is pulled again', async () => {
    const old = await olderDatabase('user-schedule');
    const identity = (doc: unknown) => doc;
    await old.addCollections({
      posts: {
        schema: olderSchema(postsSchema, 5, ...SCHEDULE) as never,
        migrationStrategies: { 1: identity, 2: identity, 3: identity, 4: identity, 5: identity },
      },
    });
    const post = { ...olderPost, reactions: {}, writtenAt: 1, editedBy: null, requiresConfirmation: false };
    await old.posts.bulkInsert([
      { ...post, confirmBy: null, id: 'synced', localPending: false },
      { ...post, confirmBy: null, id: 'unsent', localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-schedule', env);
    const posts = (await db.posts.find().exec()).map((doc) => doc.toMutableJSON());
    expect(posts.map((doc) => doc.id)).toEqual(['unsent']);
    // Not scheduled: it is published when it is sent (decision 141).
    expect('publishAt' in posts[0]).toBe(false);
  });

  it('keeps a profile opening not yet sent from before openings of handover notes; recorded ones are dropped', async () => {
    const old = await olderDatabase('user-openings');
    await old.addCollections({
      // A schema of the collection's earlier version, whose type RxDB cannot know.
      residentViews: { schema: olderSchema(residentViewsSchema, 0, 'house', 'handoverIds') as never },
    });
    await old.residentViews.bulkInsert([
      { id: 'sent', residentId: 'r1', viewedAt: 1, localPending: false },
      { id: 'unsent', residentId: 'r1', viewedAt: 2, localPending: true },
    ]);
    await old.close();

    const db = await openUserDatabase('user-openings', env);
    const views = (await db.residentViews.find().exec()).map((doc) => doc.toMutableJSON());
    expect(views).toEqual([{ id: 'unsent', residentId: 'r1', viewedAt: 2, localPending: true }]);
    await db.residentViews.insert({
      id: 'handover-opening',
      residentId: '',
      house: 'Giles House',
      handoverIds: ['note-1', 'note-2'],
      viewedAt: 3,
      localPending: true,
    });
    expect(await db.residentViews.count().exec()).toBe(2);
  });
});
