import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { firstValueFrom } from 'rxjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// Kept work is tested against the real server over real HTTP (house style: client store tests).
import { statement } from '../../server/db/client';
import { startTestServer, type TestClient, type TestServer } from '../../server/test/test-server';
import { conversationIdOf } from '../../schema/chat';
import { KEPT_MAX_AGE_MS } from '../../schema/kept-rules';
import type { SyncCollection } from '../../schema/sync';
import { sendMessage } from '../features/chat/chat-actions';
import { saveWaitingMessage, setWaitingMessagesEnvironment, waitingMessages$ } from '../features/chat/waiting-messages';
import { addComment, editPost, toggleReaction } from '../features/feed/feed-actions';
import { ResidentEditSchema } from '../../schema/residents';
import { saveResidentEdit } from '../features/residents/resident-actions';
import {
  pendingPhotos$,
  savePendingPhoto,
  sendPendingPhotos,
  setPendingPhotosEnvironment,
  type PendingPhoto,
} from '../features/residents/pending-photos';
import { recordHandoverOpening } from '../features/handovers/handover-actions';
import { recordResidentView, sendResidentPhoto } from '../features/residents/residents-api';
import { NetworkError } from '../lib/api';
import type { ResidentLocal } from './collections';
import { readMergeNotices } from './merge-notices';
import { createSyncedDatabase, type UserDatabase } from './database';
import { databaseNameFor } from './database-name';
import { countKeptItems, listKeptEntries, putKeptEntry, sealForUser, setKeptEnvironment } from './kept-store';
import { forgetLostChanges, readLostChanges } from './lost-changes-store';
import { sendKeptWork } from './kept-send';
import { countWaitingFiles, keptPublicKey, sealUnsentRows, sealWaitingFiles } from './kept-work';
import { startSync } from './replication';
import { storedPost } from './test-fixtures';

const env = { indexedDB, IDBKeyRange, multiInstance: false };
let t: TestServer;
let publicKey: string;

beforeAll(async () => {
  t = await startTestServer();
  setKeptEnvironment({ indexedDB, IDBKeyRange });
  setPendingPhotosEnvironment({ indexedDB, IDBKeyRange });
  setWaitingMessagesEnvironment({ indexedDB, IDBKeyRange });
  publicKey = (await keptPublicKey({ baseUrl: t.url }))!;
});
afterAll(async () => {
  await t.close();
});

/** A device that edits and opens residents' profiles. */
const RESIDENTS = ['users', 'residents', 'residentViews'] as const;

/** The collections a session writes to; RxDB opens at most 13 collections per process. */
const WRITES = ['posts', 'comments', 'reactions', 'conversations', 'messages', 'residentViews'] as const;

/** A fetch that carries a signed-in client's cookie. */
function fetchAs(client: TestClient): typeof fetch {
  const send = globalThis.fetch;
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('cookie', client.cookie);
    return send(input, { ...init, headers });
  }) as typeof fetch;
}

/** A browser of one user: a fetch that carries their cookie and can be cut, and their local store. */
async function makeDevice(
  signedIn: { user: { id: string }; client: TestClient },
  only: Parameters<typeof createSyncedDatabase>[2] = WRITES,
) {
  const { user, client } = signedIn;
  const db = await createSyncedDatabase(databaseNameFor(user.id) + randomUUID().slice(0, 8), env, only);
  const device = {
    user,
    client,
    db,
    online: true,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!device.online) throw new TypeError('Failed to fetch (offline)');
      return fetchAs(client)(input, init);
    }) as typeof fetch,
  };
  return device;
}
type Device = Awaited<ReturnType<typeof makeDevice>>;

/** Syncs until the server's posts are on the device, then stops the sync (the session is about to end). */
async function syncOnce(device: Device) {
  const sync = startSync(device.db as unknown as Record<SyncCollection, never>, {
    baseUrl: t.url,
    fetch: device.fetch,
    retryMs: 100,
  });
  await sync.initialSyncDone;
  return sync;
}

const rows = async (table: string, where: string, ...args: unknown[]) =>
  await statement(t.db, `SELECT * FROM ${table} WHERE ${where}`).all(args);

/** Everything a care worker writes in a shift, offline: each kind of item once. */
async function writeOffline(device: Device, theirs: { id: string }, colleagueId: string, residentId: string) {
  const db = device.db as UserDatabase;
  const now = Date.now();
  const mine = randomUUID();
  await db.posts.insert(
    storedPost({
      id: mine,
      authorId: device.user.id,
      content: 'Written offline',
      createdAt: now,
      updatedAt: now,
      localPending: true,
    }),
  );
  await addComment(db, theirs.id, device.user.id, 'A comment written offline');
  await toggleReaction(db, theirs.id, device.user.id, 'love', undefined);
  await sendMessage(db, device.user.id, conversationIdOf(device.user.id, colleagueId), 'A message written offline');
  await recordResidentView(db, residentId);
  return mine;
}

describe('kept work', () => {
  it('keeps what a session wrote offline and sends it, once, when the same person signs in again', async () => {
    const author = await t.signedIn();
    const colleague = await t.buildUser();
    const theirs = await t.buildPost({ authorId: colleague.id });
    const ownPost = await t.buildPost({ authorId: author.user.id, content: 'Before the shift' });
    const resident = await createResidentFor(t);
    const device = await makeDevice(author);
    const sync = await syncOnce(device);
    device.online = false;
    const mine = await writeOffline(device, theirs, colleague.id, resident);
    await editPost(device.db, ownPost.id, { content: 'Edited offline', isUrgent: false });
    // Meanwhile an administrator moves the post to another category: both changes must survive.
    await statement(t.db, "UPDATE posts SET category = 'wages_hr' WHERE id = ?").run([ownPost.id]);
    await sync.stop();

    // The session ends offline: the unsent work is sealed and the store removed.
    const kept = await sealUnsentRows(device.db, author.user.id, publicKey);
    expect(kept).toBe(5);
    await device.db.remove();
    expect(await countKeptItems()).toBe(5);
    const [entry] = await listKeptEntries(author.user.id);
    expect(new TextDecoder().decode(entry.data)).not.toContain('Written offline');

    // Another person signing in on the device sends nothing and sees nothing of it.
    const other = await t.signedIn();
    expect(await sendKeptWork(other.user.id, { baseUrl: t.url, fetch: fetchAs(other.client) })).toEqual({
      sent: 0,
      lost: 0,
    });
    expect(await countKeptItems()).toBe(5);

    // The author signs in again, online: everything reaches the server exactly once.
    expect(await sendKeptWork(author.user.id, { baseUrl: t.url, fetch: fetchAs(author.client) })).toEqual({
      sent: 5,
      lost: 0,
    });
    expect(await countKeptItems()).toBe(0);
    expect(await rows('posts', 'id = ?', mine)).toHaveLength(1);
    expect((await rows('posts', 'id = ?', ownPost.id))[0]).toMatchObject({
      content: 'Edited offline',
      category: 'wages_hr',
    });
    expect(await rows('comments', 'post_id = ? AND author_id = ?', theirs.id, author.user.id)).toHaveLength(1);
    expect(await rows('reactions', 'post_id = ? AND user_id = ?', theirs.id, author.user.id)).toMatchObject([
      { type: 'love' },
    ]);
    expect(await rows('messages', 'sender_id = ?', author.user.id)).toMatchObject([
      { content: 'A message written offline' },
    ]);
    expect(await rows('audit_log', "action = 'resident.view' AND actor_id = ?", author.user.id)).toHaveLength(1);
  });

  it('seals a resident edit and a profile opening made offline, and sends both at the next sign-in, merged field by field', async () => {
    const carer = await t.signedIn();
    const residentId = await createResidentFor(t);
    const device = await makeDevice(carer, RESIDENTS);
    const db = device.db;
    const sync = await syncOnce(device);
    device.online = false;
    const shown = (await db.residents.findOne(residentId).exec())!.toJSON() as ResidentLocal;
    const edit = ResidentEditSchema.parse({ ...shown, medication: 'Insulin at 8am, sealed' });
    await saveResidentEdit(db as UserDatabase, shown, edit);
    await recordResidentView(db as UserDatabase, residentId);
    await sync.stop();

    expect(await sealUnsentRows(db, carer.user.id, publicKey)).toBe(1);
    await db.remove();
    const entries = await listKeptEntries(carer.user.id);
    expect(entries.map((e) => new TextDecoder().decode(e.data)).join()).not.toContain('Insulin');
    // A colleague changes another part of the profile before the carer is back.
    const { client: colleague } = await t.signedIn();
    const form = new FormData();
    form.append('likeToBeCall', 'Peggy');
    expect((await colleague.sendForm('PUT', `/api/residents/${residentId}`, form)).status).toBe(200);

    expect(await sendKeptWork(carer.user.id, { baseUrl: t.url, fetch: fetchAs(carer.client) })).toEqual({
      sent: 1,
      lost: 0,
    });
    expect((await rows('residents', 'id = ?', residentId))[0]).toMatchObject({
      medication: 'Insulin at 8am, sealed',
      like_to_be_call: 'Peggy',
    });
    expect(await rows('resident_versions', "resident_id = ? AND action = 'update'", residentId)).toHaveLength(2);
    expect(await rows('audit_log', "action = 'resident.view' AND actor_id = ?", carer.user.id)).toHaveLength(1);
    expect(readMergeNotices(databaseNameFor(carer.user.id))).toMatchObject([
      { collection: 'residents', id: residentId, mine: ['medication'], theirs: ['likeToBeCall'], both: [] },
    ]);
  });

  it('seals an opening of handover notes made offline, naming no note or house readably, and sends it at the next sign-in', async () => {
    const carer = await t.signedIn();
    await t.setHouses(carer.user.id, ['Giles House']);
    const { client: colleague, user: colleagueUser } = await t.signedIn();
    await t.setHouses(colleagueUser.id, ['Giles House']);
    const created = await colleague.post(`/api/houses/${encodeURIComponent('Giles House')}/handovers`, {
      shift: 'Night',
      content: 'Fluids encouraged',
    });
    const noteId = (created.body as { id: string }).id; // a created note answers the note
    const device = await makeDevice(carer, ['handovers', 'residentViews']);
    // A store opened with some collections only: the opening needs only residentViews.
    await recordHandoverOpening(device.db as UserDatabase, 'Giles House', [noteId]);

    await sealUnsentRows(device.db, carer.user.id, publicKey);
    await device.db.remove();
    const sealed = (await listKeptEntries(carer.user.id)).map((e) => new TextDecoder().decode(e.data)).join();
    expect(sealed).not.toContain(noteId);
    expect(sealed).not.toContain('Giles House');

    await sendKeptWork(carer.user.id, { baseUrl: t.url, fetch: fetchAs(carer.client) });
    expect(await listKeptEntries(carer.user.id)).toEqual([]);
    expect(
      await rows('audit_log', "action = 'handover.viewed' AND actor_id = ? AND target_id = ?", carer.user.id, noteId),
    ).toHaveLength(1);
  });

  it('seals a resident photo chosen offline with its edit, restores it only for its author, and stores it once', async () => {
    const carer = await t.signedIn();
    const residentId = await createResidentFor(t);
    const device = await makeDevice(carer, RESIDENTS);
    const sync = await syncOnce(device);
    device.online = false;
    const shown = (await device.db.residents.findOne(residentId).exec())!.toJSON() as ResidentLocal;
    const portrait = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a35' } })
      .png()
      .toBuffer();
    await saveResidentEdit(
      device.db as UserDatabase,
      shown,
      ResidentEditSchema.parse({ ...shown, medication: 'Eye drops' }),
    );
    await savePendingPhoto({
      residentId,
      userId: carer.user.id,
      baseUpdatedAt: shown.updatedAt,
      name: 'harold-portrait.png',
      blob: new Blob([new Uint8Array(portrait)], { type: 'image/png' }),
    });
    await sync.stop();

    // The session ends: the edit and the photo are sealed, and nothing of the photo is left readable.
    expect(await sealUnsentRows(device.db, carer.user.id, publicKey)).toBe(1);
    expect(await sealWaitingFiles(carer.user.id, publicKey, { indexedDB, IDBKeyRange })).toBe(1);
    await device.db.remove();
    expect(await countWaitingFiles(carer.user.id, { indexedDB, IDBKeyRange })).toBe(0);
    const sealed = (await listKeptEntries(carer.user.id)).map((e) => new TextDecoder().decode(e.data)).join();
    expect(sealed).not.toContain('harold-portrait');

    // Another person on the device gets nothing of it.
    const other = await t.signedIn();
    await sendKeptWork(other.user.id, { baseUrl: t.url, fetch: fetchAs(other.client), indexedDB, IDBKeyRange });
    expect(await firstValueFrom(pendingPhotos$(other.user.id))).toEqual([]);

    // The carer signs in again: the edit goes, the photo waits on the device again and is sent; its first answer is
    // lost, so it is sent twice, and stored once.
    expect(
      await sendKeptWork(carer.user.id, { baseUrl: t.url, fetch: fetchAs(carer.client), indexedDB, IDBKeyRange }),
    ).toEqual({ sent: 2, lost: 0 });
    expect(await firstValueFrom(pendingPhotos$(carer.user.id))).toMatchObject([{ residentId, error: null }]);
    // The app's REST client asks its own origin: here, the test server, with the carer's cookie.
    const asCarer = fetchAs(carer.client);
    vi.stubGlobal('fetch', (input: string, init?: RequestInit) => asCarer(`${t.url}${input}`, init));
    try {
      let answers = 0;
      const deps = {
        userId: carer.user.id,
        send: async (photo: PendingPhoto) => {
          const merge = await sendResidentPhoto(photo);
          if ((answers += 1) === 1) throw new NetworkError(new TypeError('The answer was lost'));
          return merge;
        },
        onMerge: () => {},
      };
      await sendPendingPhotos(deps);
      expect(await firstValueFrom(pendingPhotos$(carer.user.id))).toMatchObject([{ error: null }]);
      await sendPendingPhotos(deps);
      expect(answers).toBe(2);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(await firstValueFrom(pendingPhotos$(carer.user.id))).toEqual([]);
    const [stored] = await rows('residents', 'id = ?', residentId);
    expect(stored).toMatchObject({ medication: 'Eye drops' });
    expect(String(stored.photo_url)).toMatch(/^\/api\/residents\/photos\/[0-9a-f]{32}\.png$/);
    const versions = await rows('resident_versions', "resident_id = ? AND action = 'update'", residentId);
    expect(versions.map((v) => JSON.parse(String(v.changes)).map((c: { field: string }) => c.field))).toEqual(
      expect.arrayContaining([['medication'], ['photoUrl']]),
    );
    expect(versions).toHaveLength(2);
  });

  it('seals a chat message waiting for its photo, restores it only for its writer, who then sends it', async () => {
    const writer = await t.signedIn({ role: 'staff' });
    const other = await t.signedIn({ role: 'staff' });
    const conversationId = conversationIdOf(writer.user.id, other.user.id);
    await saveWaitingMessage({
      id: randomUUID(),
      userId: writer.user.id,
      conversationId,
      createdAt: Date.now(),
      writtenAt: Date.now(),
      content: 'Photo of the new lift sign',
      mentions: [],
      files: [{ name: 'lift-sign.png', type: 'image/png', size: 3, blob: new Blob(['png']), uploaded: null }],
      error: null,
    });

    // The session ends: the message is sealed with its photo, and nothing of either is left readable.
    expect(await sealWaitingFiles(writer.user.id, publicKey, { indexedDB, IDBKeyRange })).toBe(1);
    expect(await countWaitingFiles(writer.user.id, { indexedDB, IDBKeyRange })).toBe(0);
    expect(await firstValueFrom(waitingMessages$(writer.user.id, conversationId))).toEqual([]);
    const sealed = (await listKeptEntries(writer.user.id)).map((e) => new TextDecoder().decode(e.data)).join();
    expect(sealed).not.toMatch(/lift/);

    // Someone else signing in gets nothing; the writer gets it back, waiting to upload as before, with its photo.
    await sendKeptWork(other.user.id, { baseUrl: t.url, fetch: fetchAs(other.client), indexedDB, IDBKeyRange });
    expect(await firstValueFrom(waitingMessages$(other.user.id, conversationId))).toEqual([]);
    await sendKeptWork(writer.user.id, { baseUrl: t.url, fetch: fetchAs(writer.client), indexedDB, IDBKeyRange });
    const [back] = await firstValueFrom(waitingMessages$(writer.user.id, conversationId));
    expect(back).toMatchObject({ content: 'Photo of the new lift sign', error: null });
    expect(back.files.map((file) => file.name)).toEqual(['lift-sign.png']);
    expect(await back.files[0].blob.text()).toBe('png');
  });

  it('sends a batch kept twice (a page closed while sealing) only once', async () => {
    const author = await t.signedIn();
    const device = await makeDevice(author);
    const sync = await syncOnce(device);
    device.online = false;
    const id = randomUUID();
    const now = Date.now();
    await device.db.posts.insert(
      storedPost({
        id,
        authorId: author.user.id,
        content: 'Twice',
        createdAt: now,
        updatedAt: now,
        localPending: true,
      }),
    );
    await sync.stop();
    const [entry] = await sealAndRead(device, author.user.id);
    await putKeptEntry({ ...entry, id: randomUUID() });
    await device.db.remove();
    expect(await sendKeptWork(author.user.id, { baseUrl: t.url, fetch: fetchAs(author.client) })).toEqual({
      sent: 2,
      lost: 0,
    });
    expect(await rows('posts', 'id = ?', id)).toHaveLength(1);
  });

  it('tells of what a delete on the server won over, and sends the rest of the same batch once', async () => {
    const author = await t.signedIn();
    const colleague = await t.buildUser();
    const own = await t.buildPost({ authorId: author.user.id, content: 'Handover at ten' });
    const theirs = await t.buildPost({ authorId: colleague.id, content: 'Fire drill on Monday' });
    const device = await makeDevice(author);
    const sync = await syncOnce(device);
    device.online = false;
    const db = device.db as UserDatabase;
    await editPost(db, own.id, { content: 'Handover at half past ten', isUrgent: false });
    await addComment(db, own.id, author.user.id, 'I will bring the keys');
    await addComment(db, theirs.id, author.user.id, 'Count me in');
    await toggleReaction(db, theirs.id, author.user.id, 'love', undefined);
    const fresh = randomUUID();
    const now = Date.now();
    await db.posts.insert(
      storedPost({
        id: fresh,
        authorId: author.user.id,
        content: 'Still here',
        createdAt: now,
        updatedAt: now,
        localPending: true,
      }),
    );
    await addComment(db, fresh, author.user.id, 'A comment that stays');
    await sync.stop();
    expect(await sealUnsentRows(device.db, author.user.id, publicKey)).toBe(6);
    await device.db.remove();

    // Meanwhile an administrator deletes both posts the user changed.
    const { client: admin } = await t.signedIn({ role: 'admin' });
    for (const id of [own.id, theirs.id]) expect((await admin.request('DELETE', `/api/posts/${id}`)).status).toBe(204);

    forgetLostChanges();
    expect(await sendKeptWork(author.user.id, { baseUrl: t.url, fetch: fetchAs(author.client) })).toEqual({
      sent: 6,
      lost: 0,
    });
    const told = readLostChanges(databaseNameFor(author.user.id)).map((change) => ({
      kind: change.kind,
      postId: change.kind === 'message' ? change.conversationId : change.postId,
      text: change.text,
    }));
    expect(told).toEqual(
      expect.arrayContaining([
        { kind: 'post', postId: own.id, text: 'Handover at half past ten' },
        { kind: 'comment', postId: own.id, text: 'I will bring the keys' },
        { kind: 'comment', postId: theirs.id, text: 'Count me in' },
        { kind: 'reaction', postId: theirs.id, text: 'love' },
      ]),
    );
    expect(told).toHaveLength(4);
    // Nothing of it is on the server (the tombstone keeps no words, decision 126); the rest of the batch is, once.
    expect(await rows('posts', 'id = ?', own.id)).toMatchObject([{ deleted: 1, content: '' }]);
    expect(
      await rows('comments', 'author_id = ? AND deleted = 0 AND post_id IN (?, ?)', author.user.id, own.id, theirs.id),
    ).toEqual([]);
    expect(await rows('reactions', 'user_id = ? AND deleted = 0', author.user.id)).toEqual([]);
    expect(await rows('posts', 'id = ?', fresh)).toMatchObject([{ content: 'Still here', deleted: 0 }]);
    expect(await rows('comments', 'post_id = ? AND author_id = ?', fresh, author.user.id)).toMatchObject([
      { content: 'A comment that stays', deleted: 0 },
    ]);
    forgetLostChanges();
  });

  it('leaves kept work for later when the server cannot be reached, and removes it after fourteen days', async () => {
    const author = await t.signedIn();
    await putKeptEntry(await sealForUser(author.user.id, publicKey, { v: 1, deviceId: 'x', rows: {} }, 3));
    const offline = (() => Promise.reject(new TypeError('Failed to fetch (offline)'))) as typeof fetch;
    await expect(sendKeptWork(author.user.id, { baseUrl: t.url, fetch: offline })).rejects.toThrow(TypeError);
    expect(await listKeptEntries(author.user.id)).toHaveLength(1);
    expect(await listKeptEntries(author.user.id, Date.now() + KEPT_MAX_AGE_MS + 1)).toHaveLength(0);
    expect(await listKeptEntries(author.user.id)).toHaveLength(0);
  });
});

async function sealAndRead(device: Device, userId: string) {
  await sealUnsentRows(device.db, userId, publicKey);
  return listKeptEntries(userId);
}

/** A resident, made by an administrator over REST as the app does. */
async function createResidentFor(server: TestServer): Promise<string> {
  const { client } = await server.signedIn({ role: 'admin' });
  const form = new FormData();
  form.append('name', `Resident ${randomUUID().slice(0, 6)}`);
  const res = await client.postForm('/api/residents', form);
  if (res.status !== 201) throw new Error(`resident: ${res.status} ${res.text}`);
  return String(res.body.id);
}
