import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../test/postgres';
import {
  closeDb,
  dialectOf,
  inTransaction,
  iterate,
  openDb,
  openPostgres,
  statement,
  transaction,
  type Db,
} from './client';
import { toPostgres } from './engine';
import { settings, syncCounter } from './tables';
import { committedSeq, nextSeq } from '../lib/seq.queries';

const bin = postgresOrSkip();

/** The same checks on each engine: what the services rely on from the data layer. */
function dataLayerOn(name: string, open: () => Promise<Db>, skip = false) {
  describe.skipIf(skip)(`the data layer on ${name}`, () => {
    let db: Db;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      if (db) await closeDb(db);
    });

    const countSettings = async (on: Db = db) =>
      (await statement<[], { n: number }>(on, 'SELECT count(*) AS n FROM settings').get())!.n;

    it('commits a transaction’s writes together and hands out the sync sequence in order', async () => {
      const before = await countSettings();
      const seqs = await transaction(db, async (tx) => {
        await tx
          .insert(settings)
          .values({ key: `h-${name}-1`, value: `A ${name}` })
          .run();
        const take = statement<[], { seq: number }>(
          tx,
          'INSERT INTO sync_counter (id, seq) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET seq = sync_counter.seq + 1 RETURNING seq',
        );
        return [(await take.get())!.seq, (await take.get())!.seq];
      });
      expect(seqs[1]).toBe(seqs[0]! + 1);
      expect(await countSettings()).toBe(before + 1);
      const counter = await db.select().from(syncCounter).where(eq(syncCounter.id, 1)).get();
      expect(counter?.seq).toBe(seqs[1]);
      expect(typeof counter?.seq).toBe('number');
    });

    it('rolls every write back when the work throws, and the error reaches the caller', async () => {
      const before = await countSettings();
      await expect(
        transaction(db, async (tx) => {
          await tx
            .insert(settings)
            .values({ key: `h-${name}-2`, value: `B ${name}` })
            .run();
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(await countSettings()).toBe(before);
    });

    it('keeps a savepoint’s failure inside it when the outer work catches it', async () => {
      const before = await countSettings();
      await transaction(db, async (tx) => {
        await tx
          .insert(settings)
          .values({ key: `h-${name}-3`, value: `C ${name}` })
          .run();
        await transaction(tx, async (inner) => {
          await inner
            .insert(settings)
            .values({ key: `h-${name}-4`, value: `D ${name}` })
            .run();
          throw new Error('inner');
        }).catch(() => undefined);
      });
      expect(await countSettings()).toBe(before + 1);
    });

    it('keeps a failed statement inside its savepoint when the outer work catches it', async () => {
      const before = await countSettings();
      await transaction(db, async (tx) => {
        await tx
          .insert(settings)
          .values({ key: `h-${name}-sp1`, value: `E ${name}` })
          .run();
        await transaction(tx, (inner) => statement(inner, 'SELECT no_such_column FROM settings').all()).catch(
          () => undefined,
        );
        await transaction(tx, async (inner) => {
          await transaction(inner, async () => undefined);
          await inner
            .insert(settings)
            .values({ key: `h-${name}-sp2`, value: `F ${name}` })
            .run();
        });
      });
      expect(await countSettings()).toBe(before + 2);
    });

    it('sends a transaction’s start and savepoints with its next statement, and no release before its commit', async () => {
      if (dialectOf(db) !== 'postgres') return; // SQLite's statements are no round trips
      const sent: string[] = [];
      const query = pg.Client.prototype.query;
      const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args) {
        const config = args[0] as unknown as string | { text: string };
        sent.push(typeof config === 'string' ? config : config.text);
        return (query as (...a: unknown[]) => unknown).apply(this, args) as never;
      });
      try {
        await transaction(db, (tx) =>
          transaction(tx, (a) =>
            transaction(a, (b) =>
              b
                .insert(settings)
                .values({ key: `h-${name}-sp3`, value: `G ${name}` })
                .run(),
            ),
          ),
        );
      } finally {
        spy.mockRestore();
      }
      expect(sent).toHaveLength(3);
      expect(sent[0]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock\(\d+\); SAVEPOINT sp1; SAVEPOINT sp2$/);
      expect(sent[1]).toMatch(/^insert into "settings"/);
      expect(sent[2]).toBe('COMMIT');
      expect(await statement(db, 'SELECT value FROM settings WHERE key = ?').pluck([`h-${name}-sp3`])).toEqual([
        `G ${name}`,
      ]);
    });

    it('runs concurrent transactions one after the other, so a read-then-write never loses an update', async () => {
      await db
        .insert(settings)
        .values({ key: `h-${name}-n`, value: '0' })
        .run();
      await Promise.all(
        Array.from({ length: 20 }, () =>
          transaction(db, async (tx) => {
            const row = await tx
              .select()
              .from(settings)
              .where(eq(settings.key, `h-${name}-n`))
              .get();
            await new Promise((resolve) => setTimeout(resolve, 1));
            await tx
              .update(settings)
              .set({ value: String(Number(row!.value) + 1) })
              .where(eq(settings.key, `h-${name}-n`))
              .run();
          }),
        ),
      );
      const row = await db
        .select()
        .from(settings)
        .where(eq(settings.key, `h-${name}-n`))
        .get();
      expect(row?.value).toBe('20');
    });

    it('does not let a statement outside a transaction see or join its uncommitted writes', async () => {
      const before = await countSettings();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const tx = transaction(db, async (inner) => {
        await inner
          .insert(settings)
          .values({ key: `h-${name}-5`, value: `E ${name}` })
          .run();
        await held;
        throw new Error('rolled back');
      });
      const outside = countSettings();
      await new Promise((resolve) => setTimeout(resolve, 20));
      release();
      await expect(tx).rejects.toThrow('rolled back');
      expect(await outside).toBe(before);
    });

    it('refuses a transaction’s connection once the transaction has ended', async () => {
      let kept: Db | undefined;
      await transaction(db, async (tx) => {
        kept = tx;
      });
      await expect(statement(kept!, 'SELECT 1 AS one').get()).rejects.toThrow(/after the transaction ended/);
    });

    it('reads rows as objects, arrays or a column, with ? and @name parameters', async () => {
      const rows = await statement<{ id: string }, { id: string; name: string }>(
        db,
        "SELECT key AS id, value AS name FROM settings WHERE key = @id AND value <> '?'",
      ).all({ id: `h-${name}-1` });
      expect(rows).toEqual([{ id: `h-${name}-1`, name: `A ${name}` }]);
      expect(await statement(db, 'SELECT key FROM settings WHERE key = ?').rows([`h-${name}-1`])).toEqual([
        [`h-${name}-1`],
      ]);
      expect(
        await statement(db, 'SELECT key FROM settings WHERE key IN (?, ?) ORDER BY key').pluck([
          `h-${name}-1`,
          `h-${name}-3`,
        ]),
      ).toEqual([`h-${name}-1`, `h-${name}-3`]);
      expect(
        await statement(db, 'UPDATE settings SET value = value WHERE key LIKE ?').run([`h-${name}-%`]),
      ).toBeGreaterThan(1);
    });

    it('runs the same text again and again, with other values, in and out of transactions', async () => {
      const read = (on: Db, key: string) =>
        statement<[string], { value: string }>(on, 'SELECT value FROM settings WHERE key = ?').get([key]);
      for (let i = 0; i < 12; i += 1) {
        expect((await read(db, `h-${name}-1`))?.value).toBe(`A ${name}`);
        expect(await read(db, `h-${name}-none-${i}`)).toBeUndefined();
        await transaction(db, async (tx) => expect((await read(tx, `h-${name}-3`))?.value).toBeDefined());
      }
      if (dialectOf(db) !== 'postgres') return;
      // Prepared once on a connection: PostgreSQL lists it once however often it ran there.
      const listed = await transaction(db, async (tx) => {
        await read(tx, `h-${name}-1`);
        await read(tx, `h-${name}-3`);
        return await statement(tx, 'SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = ?').pluck([
          'SELECT value FROM settings WHERE key = $1',
        ]);
      });
      expect(listed).toEqual([1]);
    });

    it('never reports a commit PostgreSQL turned into a rollback', async () => {
      if (dialectOf(db) !== 'postgres') return; // SQLite goes on after a failed statement
      const before = await countSettings();
      const failing = (tx: Db) => statement(tx, 'SELECT no_such_column FROM settings').all();
      // The work swallows a failed statement (outside a savepoint) and ends: PostgreSQL rolls it all back.
      await expect(
        transaction(db, async (tx) => {
          await tx
            .insert(settings)
            .values({ key: `h-${name}-lost`, value: 'x' })
            .run();
          await failing(tx).catch(() => undefined);
        }),
      ).rejects.toThrow(/rolled back/);
      // A savepoint asked for in the aborted transaction fails it (it is sent with its first statement).
      await expect(
        transaction(db, async (tx) => {
          await failing(tx).catch(() => undefined);
          await transaction(tx, (inner) => countSettings(inner));
        }),
      ).rejects.toThrow(/aborted/);
      expect(await countSettings()).toBe(before);
    });

    it('reads the committed sequence only once the writer running now has committed', async () => {
      let commit!: () => void;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let taken = 0;
      let started!: () => void;
      const writing = new Promise<void>((resolve) => (started = resolve));
      const writer = transaction(db, async (tx) => {
        taken = await nextSeq(tx);
        started();
        await held;
      });
      await writing;
      let read: number | null = null;
      const reading = committedSeq(db).then((seq) => (read = seq));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(read).toBeNull();
      commit();
      await writer;
      expect(await reading).toBe(taken);
    });

    it('streams a long read a page at a time', async () => {
      const all = [];
      for await (const row of iterate(db, 'SELECT key FROM settings WHERE key LIKE ? ORDER BY key', [`h-${name}-%`]))
        all.push(row);
      expect(all.length).toBe(
        await statement(db, 'SELECT key FROM settings WHERE key LIKE ?')
          .rows([`h-${name}-%`])
          .then((r) => r.length),
      );
      expect(all.length).toBeGreaterThan(1);
    });

    it('tells the live streams of a transaction’s changes once it commits, and never when it rolls back', async () => {
      const told: string[] = [];
      const hub = {
        notify: (collection: string) => told.push(`notify ${collection}`),
        disconnectUser: (userId: string) => told.push(`user ${userId}`),
        disconnectSession: (hash: string) => told.push(`session ${hash}`),
      };
      await inTransaction({ db, hub }, async (deps) => {
        deps.hub.notify('posts');
        deps.hub.disconnectUser('u1');
        await deps.db
          .insert(settings)
          .values({ key: `h-${name}-6`, value: 'F' })
          .run();
        expect(told).toEqual([]);
      });
      expect(told).toEqual(['notify posts', 'user u1']);
      told.length = 0;
      await expect(
        inTransaction({ db, hub }, async (deps) => {
          deps.hub.disconnectSession('s1');
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      expect(told).toEqual([]);
    });

    it('wakes the outbox and runs afterCommit work once the outermost transaction commits', async () => {
      const done: string[] = [];
      const outbox = { wake: () => done.push('wake') };
      await inTransaction({ db, outbox }, async (deps) => {
        deps.outbox.wake();
        await inTransaction(deps, async (deps) => {
          deps.afterCommit(() => done.push('inner'));
        });
        await inTransaction(deps, async (deps) => {
          deps.afterCommit(() => done.push('rolled back'));
          throw new Error('this savepoint only');
        }).catch(() => undefined);
        expect(done).toEqual([]);
      });
      expect(done).toEqual(['wake', 'inner']);
    });

    it('says which SQL it speaks', () => {
      expect(dialectOf(db)).toBe(name === 'SQLite' ? 'sqlite' : 'postgres');
    });
  });
}

dataLayerOn('SQLite', async () => openDb(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sp-db-')), 'app.db')));

let postgres: TestPostgres | undefined;
dataLayerOn(
  'PostgreSQL',
  async () => {
    postgres = await startTestPostgres(bin);
    return openPostgres(postgres.url);
  },
  bin === null,
);
afterAll(async () => {
  await postgres?.stop();
});

describe.skipIf(bin === null)('a PostgreSQL database that orders text otherwise', () => {
  it('is refused with the command that makes one in byte order', async () => {
    const cluster = await startTestPostgres(bin);
    try {
      const admin = await openPostgres(cluster.url);
      await statement(
        admin,
        "CREATE DATABASE by_words LOCALE_PROVIDER icu ICU_LOCALE 'en-US' TEMPLATE template0",
      ).run();
      await closeDb(admin);
      const url = new URL(cluster.url);
      url.pathname = '/by_words';
      await expect(openPostgres(url.toString())).rejects.toThrow(/needs byte order.*createdb --locale=C/);
    } finally {
      await cluster.stop();
    }
  });
});

describe('statements in SQLite’s words, for PostgreSQL', () => {
  it('numbers ? in order and leaves quoted text alone', () => {
    expect(toPostgres(`SELECT '?', "a?" FROM t WHERE a = ? AND b = ?`)).toMatchObject({
      sql: `SELECT '?', "a?" FROM t WHERE a = $1 AND b = $2`,
      names: null,
    });
  });
  it('names an upsert’s conflict target without its table, as PostgreSQL wants', () => {
    expect(
      toPostgres('insert into "t" ("a") values (?) on conflict ("t"."a", "t"."b") do update set "a" = ?').sql,
    ).toBe('insert into "t" ("a") values ($1) on conflict ("a", "b") do update set "a" = $2');
  });
  it('numbers each @name once, however often it appears', () => {
    expect(toPostgres('SELECT * FROM t WHERE a = @id OR b = @other OR c = @id')).toMatchObject({
      sql: 'SELECT * FROM t WHERE a = $1 OR b = $2 OR c = $1',
      names: ['id', 'other'],
    });
  });
  it('names a statement after its text, to be prepared once per connection', () => {
    const one = toPostgres('SELECT * FROM t WHERE a = ?').name;
    expect(one).toMatch(/^s[\w-]+$/);
    expect(toPostgres('SELECT * FROM t WHERE a = ?').name).toBe(one);
    expect(toPostgres('SELECT * FROM t WHERE b = ?').name).not.toBe(one);
    expect(toPostgres('SELECT seq FROM sync_counter WHERE id = 1').name).toMatch(/^s/);
  });
  it('leaves unprepared a text with many parameters, and several statements in one text', () => {
    const list = (n: number) => `SELECT * FROM t WHERE a IN (${Array.from({ length: n }, () => '?').join(', ')})`;
    expect(toPostgres(list(32)).name).not.toBeNull();
    expect(toPostgres(list(33)).name).toBeNull();
    expect(toPostgres('SELECT 1; SELECT 2').name).toBeNull();
  });
});
