import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The device's store is tested against the real server over real HTTP (house style: client store tests).
import { statement } from '../../../server/db/client';
import { startTestServer, type TestServer } from '../../../server/test/test-server';
import type { HandoverPage } from '../../../schema/handovers';
import type { SyncCollection } from '../../../schema/sync';
import type { DirectoryUserLocal, HandoverLocal, ResidentLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { DELETED_AUTHOR_VIEW } from '../../lib/use-authors';
import { startSync, type SyncController } from '../../db/replication';
import {
  addHandoverAddendum,
  canCorrect,
  checkHandoverContent,
  handoverHousesOf,
  markHandoverRead,
  openedNoteIds,
  readSummaryOf,
  recordHandoverOpening,
  writeHandoverNote,
} from './handover-actions';
import { HandoverNote } from './handover-note';
import { defaultReportRange, handoverReportQuery, HandoverReportTable } from './handover-report';

const env = { indexedDB, IDBKeyRange, multiInstance: false };
const HOUSE = 'Giles House';
const OTHER = 'Tudor Way';
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** One phone of a staff member of `house`: its own session, a store with handover notes only, a network switch. */
async function makePhone(house: string, names: Parameters<typeof createSyncedDatabase>[2] = ['handovers']) {
  const { user, client } = await t.signedIn();
  await t.setHouses(user.id, [house]);
  const db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, env, names);
  const pushes: string[] = [];
  const phone = {
    user,
    client,
    db,
    online: true,
    sync: null as SyncController | null,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!phone.online) throw new TypeError('Failed to fetch (offline)');
      if (String(input).includes('/push')) pushes.push(String(init?.body));
      const headers = new Headers(init?.headers);
      headers.set('cookie', client.cookie);
      return fetch(input, { ...init, headers });
    }) as typeof fetch,
    pushes,
    start() {
      // The store has only some collections; the replication takes whichever it is given.
      phone.sync = startSync(db as unknown as Record<SyncCollection, never>, {
        baseUrl: t.url,
        fetch: phone.fetch,
        retryMs: 100,
      });
      return phone.sync;
    },
    async goOnline() {
      phone.online = true;
      phone.sync?.resync();
    },
    async close() {
      await phone.sync?.stop();
      await db.remove();
    },
  };
  return phone;
}
type Phone = Awaited<ReturnType<typeof makePhone>>;

/** Waits until the phone's copy of a note satisfies `ok`. */
async function until(phone: Phone, id: string, ok: (note: HandoverLocal) => boolean): Promise<HandoverLocal> {
  for (let i = 0; i < 200; i++) {
    const doc = await phone.db.handovers.findOne(id).exec();
    const note = doc?.toJSON() as HandoverLocal | undefined; // toJSON gives the document without RxDB's meta
    if (note && ok(note)) return note;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`note ${id} never reached the expected state`);
}

/** The notes the server holds for a house, as a member lists them. */
async function serverNotes(phone: Phone, house: string) {
  const res = await phone.client.get(`/api/houses/${encodeURIComponent(house)}/handovers?limit=100`);
  expect(res.status).toBe(200);
  return (res.body as unknown as HandoverPage).items; // the list's answer, docs/api-handovers.md
}

describe('handover notes on the device', () => {
  it('stores a note written offline and sends it once when the connection returns', async () => {
    const night = await makePhone(HOUSE);
    try {
      night.start();
      await night.sync!.initialSyncDone;
      night.online = false;
      const id = await writeHandoverNote(night.db, night.user.id, {
        house: HOUSE,
        shift: 'Night',
        content: 'Mary slept well; check her fluids at 8',
        residentIds: [],
      });
      expect(await until(night, id, (note) => note.localPending)).toMatchObject({ content: expect.any(String) });
      expect((await serverNotes(night, HOUSE)).filter((note) => note.id === id)).toEqual([]);

      await night.goOnline();
      const stored = await until(night, id, (note) => !note.localPending);
      expect(stored).toMatchObject({ house: HOUSE, shift: 'Night', authorId: night.user.id });
      await night.sync!.awaitInSync();
      const held = (await serverNotes(night, HOUSE)).filter((note) => note.id === id);
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ content: 'Mary slept well; check her fluids at 8', shift: 'Night' });
    } finally {
      await night.close();
    }
  });

  it('sends an addendum and a read made offline once each, and another house pulls nothing of the note', async () => {
    const night = await makePhone(HOUSE);
    const morning = await makePhone(HOUSE);
    const elsewhere = await makePhone(OTHER);
    try {
      const created = await night.client.post(`/api/houses/${encodeURIComponent(HOUSE)}/handovers`, {
        shift: 'Night',
        content: 'Door alarm fixed',
      });
      expect(created.status).toBe(201);
      const id = (created.body as { id: string }).id; // a created note answers the note
      for (const phone of [morning, elsewhere]) {
        phone.start();
        await phone.sync!.initialSyncDone;
      }
      await until(morning, id, () => true);

      morning.online = false;
      await markHandoverRead(morning.db, id);
      await markHandoverRead(morning.db, id);
      expect(await addHandoverAddendum(morning.db, morning.user.id, id, 'Tested it at 7')).toBe(true);
      expect(await until(morning, id, (note) => note.localPending)).toMatchObject({ readAt: expect.any(Number) });

      await morning.goOnline();
      const synced = await until(morning, id, (note) => !note.localPending && note.reads.length === 1);
      expect(synced.addenda).toMatchObject([{ content: 'Tested it at 7', authorId: morning.user.id }]);
      const [onServer] = (await serverNotes(night, HOUSE)).filter((note) => note.id === id);
      expect(onServer).toMatchObject({ readCount: 1, addenda: [{ content: 'Tested it at 7' }] });
      expect(onServer.addenda).toHaveLength(1);

      await elsewhere.sync!.awaitInSync();
      expect(await elsewhere.db.handovers.findOne(id).exec()).toBeNull();
      expect(await elsewhere.db.handovers.count().exec()).toBe(0);
    } finally {
      await Promise.all([night.close(), morning.close(), elsewhere.close()]);
    }
  });
});

describe('openings of the Handover screen (decision 142)', () => {
  const viewedBy = async (noteId: string, userId: string) =>
    (await statement(
      t.db,
      "SELECT details FROM audit_log WHERE action = 'handover.viewed' AND target_id = ? AND actor_id = ?",
    ).all([noteId, userId])) as { details: string }[];

  it('records the notes shown offline, sends each opening once when back online, and keeps nothing of them', async () => {
    const night = await makePhone(HOUSE);
    const morning = await makePhone(HOUSE, ['handovers', 'residentViews']);
    try {
      const ids: string[] = [];
      for (const content of ['Door alarm fixed', 'Mary slept well']) {
        const created = await night.client.post(`/api/houses/${encodeURIComponent(HOUSE)}/handovers`, {
          shift: 'Night',
          content,
        });
        ids.push((created.body as { id: string }).id); // a created note answers the note
      }
      morning.start();
      await morning.sync!.initialSyncDone;
      for (const id of ids) await until(morning, id, () => true);

      morning.online = false;
      const own = await writeHandoverNote(morning.db, morning.user.id, {
        house: HOUSE,
        shift: 'Day',
        content: 'Written offline, not sent yet',
        residentIds: [],
      });
      const notes = (await morning.db.handovers.find().exec()).map((doc) => doc.toJSON() as HandoverLocal);
      const shown = openedNoteIds(notes, HOUSE, morning.user.id);
      // The house's notes on the phone (earlier tests' too), but not the one written here and not sent yet.
      expect(shown).toEqual(expect.arrayContaining(ids));
      expect(shown).not.toContain(own);
      await recordHandoverOpening(morning.db, HOUSE, shown);
      await recordHandoverOpening(morning.db, HOUSE, shown);
      const waiting = (await morning.db.residentViews.find().exec()).map((doc) => doc.id);
      expect(waiting).toHaveLength(2);
      expect(await viewedBy(ids[0], morning.user.id)).toEqual([]);

      await morning.goOnline();
      await until(morning, own, (note) => !note.localPending);
      for (let i = 0; i < 200 && (await morning.db.residentViews.count().exec()) > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await morning.db.residentViews.count().exec()).toBe(0);
      // Each opening was sent once; the two, seconds apart, are one audit entry per note.
      const sent = morning.pushes.filter((body) => waiting.some((id) => body.includes(id)));
      for (const id of waiting) expect(sent.filter((body) => body.includes(id))).toHaveLength(1);
      const stored = await statement(t.db, 'SELECT id FROM handover_views WHERE user_id = ?').all([morning.user.id]);
      expect(stored).toHaveLength(2);
      for (const id of ids) {
        expect((await viewedBy(id, morning.user.id)).map((row) => JSON.parse(row.details))).toMatchObject([
          { house: HOUSE, via: 'app' },
        ]);
      }
      expect(await viewedBy(own, morning.user.id)).toEqual([]);
    } finally {
      await Promise.all([night.close(), morning.close()]);
    }
  });

  it('names at most 100 notes in one opening', async () => {
    const phone = await makePhone(HOUSE, ['residentViews']);
    try {
      const ids = Array.from({ length: 230 }, () => randomUUID());
      await recordHandoverOpening(phone.db, HOUSE, ids);
      const rows = (await phone.db.residentViews.find().exec()).map((doc) => doc.toJSON());
      expect(rows.map((row) => row.handoverIds?.length ?? 0).sort((a, b) => b - a)).toEqual([100, 100, 30]);
      expect(rows.flatMap((row) => row.handoverIds ?? []).sort()).toEqual([...ids].sort());
      expect(rows.every((row) => row.house === HOUSE && row.residentId === '' && row.localPending)).toBe(true);
      await recordHandoverOpening(phone.db, HOUSE, []);
      expect(await phone.db.residentViews.count().exec()).toBe(3);
    } finally {
      await phone.close();
    }
  });
});

describe('what the Handover screen shows', () => {
  const person = (id: string, houses: string[], over: Partial<DirectoryUserLocal> = {}): DirectoryUserLocal => ({
    id,
    firstName: id,
    lastName: id.toUpperCase(),
    role: 'staff',
    profileImageUrl: null,
    isActive: true,
    houses,
    type: 'employee',
    updatedAt: 1,
    localPending: false,
    ...over,
  });
  const note = (over: Partial<HandoverLocal> = {}): HandoverLocal => ({
    id: 'n1',
    house: HOUSE,
    shift: 'Night',
    authorId: 'writer',
    content: 'A note',
    residentIds: [],
    createdAt: 1_000_000,
    writtenAt: 1_000_000,
    updatedAt: 1_000_000,
    correctedAt: null,
    addenda: [],
    reads: [],
    readAt: null,
    hidden: false,
    localPending: false,
    ...over,
  });

  it('counts the active members of the house other than the author, as decision 138 defines "on shift"', () => {
    const directory = [
      person('writer', [HOUSE]),
      person('reader', [HOUSE]),
      person('late', [HOUSE]),
      person('gone', [HOUSE], { isActive: false }),
      person('other', [OTHER]),
      person('admin', [], { role: 'admin' }),
    ];
    const summary = readSummaryOf(
      note({
        reads: [
          { userId: 'reader', readAt: 5 },
          { userId: 'admin', readAt: 6 },
        ],
      }),
      directory,
      'late',
    );
    expect(summary.onShift.map((p) => [p.user.id, p.readAt])).toEqual([
      ['late', null],
      ['reader', 5],
    ]);
    expect(summary.readCount).toBe(1);
    // The user's own read counts as soon as it is made, before the server has it.
    expect(readSummaryOf(note({ readAt: 9 }), directory, 'late').readCount).toBe(1);
  });

  it('lets only the author correct, only once the note is on the server and only in its first hour', () => {
    expect(canCorrect(note(), 'writer', 1_000_000 + 59 * 60_000)).toBe(true);
    expect(canCorrect(note(), 'writer', 1_000_000 + 60 * 60_000)).toBe(false);
    expect(canCorrect(note(), 'reader', 1_000_001)).toBe(false);
    expect(canCorrect(note({ localPending: true }), 'writer', 1_000_001)).toBe(false);
  });

  it('offers admins every house and staff their own, and checks the words as the server does', () => {
    const all = [HOUSE, 'Main Road', OTHER];
    expect(handoverHousesOf(true, [], all)).toEqual(all);
    expect(handoverHousesOf(false, [OTHER, HOUSE], all)).toEqual([HOUSE, OTHER]);
    expect(handoverHousesOf(false, [], all)).toEqual([]);
    expect(checkHandoverContent('   ')).toEqual({ error: 'Write the note first' });
    expect(checkHandoverContent(' ok ')).toEqual({ content: 'ok' });
    expect(checkHandoverContent('x'.repeat(5001))).toMatchObject({ error: expect.stringContaining('5000') });
  });

  it('renders a note with its residents, addenda, count and the actions the user may take', () => {
    const directory = [person('writer', [HOUSE]), person('reader', [HOUSE]), person('late', [HOUSE])];
    const render = (userId: string, isAdmin: boolean, over: Partial<HandoverLocal> = {}) =>
      renderToStaticMarkup(
        createElement(HandoverNote, {
          note: note({
            residentIds: ['r1'],
            reads: [{ userId: 'reader', readAt: 5 }],
            addenda: [{ id: 'a1', authorId: 'reader', content: 'Seen at 7', createdAt: 2, writtenAt: 2 }],
            ...over,
          }),
          // Rendering only: no action runs, so the note needs no store.
          db: {} as UserDatabase,
          userId,
          isAdmin,
          authors: () => DELETED_AUTHOR_VIEW,
          directory,
          residents: new Map([['r1', { name: 'Mary Ives' } as ResidentLocal]]), // only the name is shown
        }),
      );
    const late = render('late', false);
    expect(late).toContain('Residents: Mary Ives');
    expect(late).toContain('Seen at 7');
    expect(late).toContain('Read by 1 of 2 on shift');
    expect(late).toContain('Mark as read');
    expect(late).toContain('Add to this note');
    expect(late).not.toContain('Hide');
    expect(render('reader', false)).not.toContain('Mark as read');
    const admin = render('admin', true, { hidden: true });
    expect(admin).toContain('Hidden from staff');
    expect(admin).not.toContain('>Hide<');
    expect(render('admin', true)).toContain('>Hide<');
  });
});

describe('the handover report on the admin page', () => {
  it('asks for the last week by default, every house unless one is chosen, and links the CSV of the same query', () => {
    expect(defaultReportRange(new Date(2026, 0, 3, 9, 30))).toEqual({ from: '2025-12-28', to: '2026-01-03' });
    expect(handoverReportQuery('all', '2026-01-01', '2026-01-07')).toBe('from=2026-01-01&to=2026-01-07');
    expect(handoverReportQuery(HOUSE, '2026-01-01', '2026-01-07')).toBe(
      'from=2026-01-01&to=2026-01-07&house=Giles+House',
    );
  });

  it('shows per house and day the notes written, the reads of the next shift and the share read', () => {
    const html = renderToStaticMarkup(
      createElement(HandoverReportTable, {
        report: {
          from: '2026-01-01',
          to: '2026-01-07',
          house: null,
          rows: [
            { house: HOUSE, day: '2026-01-02', notes: 3, reads: 4, expected: 6, percent: 67 },
            { house: OTHER, day: '2026-01-02', notes: 1, reads: 0, expected: 0, percent: null },
          ],
        },
      }),
    );
    expect(html).toContain('Read by the next shift');
    expect(html).toContain('<td>Giles House</td><td>02/01/2026</td><td>3</td><td>4 of 6</td><td>67%</td>');
    expect(html).toContain('No one else on shift');
    const empty = createElement(HandoverReportTable, { report: { from: 'a', to: 'b', house: null, rows: [] } });
    expect(renderToStaticMarkup(empty)).toContain('No handover notes in these days.');
  });
});
