import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAMED_HOUSES } from '../schema/constants';
import type { ResidentView } from '../schema/residents';
import { randomUUID } from 'node:crypto';
import { openDb, sqliteOf, inTransaction } from './db/client';
import { tablesToCopy, type TableToCopy } from './db/pg/copy-from-sqlite';
import { insertPost } from './features/posts/posts.queries';
import { connectionMessage, shownUrl } from './migrate-to-postgres';
import { runCli } from './test/cli';
import { freePort, postgresOrSkip, startTestPostgres, type TestPostgres } from './test/postgres';
import { startTestServer, type TestServer } from './test/test-server';

const bin = postgresOrSkip();
const tables = tablesToCopy();

type Row = Record<string, unknown>;

/** A row as both sides can be compared: booleans and integers as numbers (pg reads a bigint as a string). */
function normalised(table: TableToCopy, row: Row): Row {
  const out: Row = {};
  for (const { name, kind } of table.columns) {
    const value = row[name];
    if (value === null || value === undefined) out[name] = null;
    else if (kind === 'boolean') out[name] = value === true || value === 1 ? 1 : 0;
    else if (kind === 'integer' || kind === 'double') out[name] = Number(value);
    else out[name] = value;
  }
  return out;
}

/** Posts beyond what one INSERT carries, so the copy goes in several batches. */
const SEEDED_POSTS = 12_000;

const sorted = (rows: Row[]) => rows.map((row) => JSON.stringify(row)).sort();

// It copies an SQLite deployment into a PostgreSQL of its own: run whole on the SQLite pass, which has the file.
describe.skipIf(bin === null || process.env.TEST_DATABASE === 'postgres')('npm run migrate-to-postgres', () => {
  let postgres: TestPostgres | undefined;
  let pool: pg.Pool | undefined;
  let t: TestServer | undefined;
  let dataDir: string;
  let serverRunning = false;

  const migrate = (url: string) => runCli('server/migrate-to-postgres.ts', [url], { DATA_DIR: dataDir });
  const query = async <T extends object = Row>(text: string, values: unknown[] = []) =>
    (await pool!.query<T>(text, values)).rows; // set in beforeAll

  /** Every table's rows, normalised and sorted, from the deployment's SQLite file and from PostgreSQL. */
  async function bothSides() {
    const sqlite = new Database(`${dataDir}/staff-portal.db`, { readonly: true, fileMustExist: true });
    try {
      const result: Record<string, { sqlite: string[]; postgres: string[] }> = {};
      for (const table of tables) {
        // SELECT * of a table: its columns by name.
        const fromSqlite = sqlite.prepare(`SELECT * FROM "${table.name}"`).all() as Row[];
        const fromPostgres = await query(`SELECT * FROM "${table.name}"`);
        result[table.name] = {
          sqlite: sorted(fromSqlite.map((row) => normalised(table, row))),
          postgres: sorted(fromPostgres.map((row) => normalised(table, row))),
        };
      }
      return result;
    } finally {
      sqlite.close();
    }
  }

  beforeAll(async () => {
    postgres = await startTestPostgres(bin);
    pool = new pg.Pool({ connectionString: postgres.url });
    t = await startTestServer();
    serverRunning = true;
    dataDir = t.dataDir;
    const admin = await t.signedIn({ role: 'admin' });
    const staff = await t.signedIn({ firstName: 'Sam' });
    const other = await t.signedIn({ firstName: 'Olu' });
    await t.setHouses(staff.user.id, [NAMED_HOUSES[0], NAMED_HOUSES[1]]);
    await t.setHouses(other.user.id, [NAMED_HOUSES[1]]);

    const post = await t.buildPost({ authorId: staff.user.id, houseTags: JSON.stringify([NAMED_HOUSES[0]]) });
    for (const { client } of [admin, other]) {
      expect((await client.post(`/api/posts/${post.id}/comments`, { content: 'Thank you' })).status).toBe(201);
      expect((await client.post(`/api/posts/${post.id}/reactions`, { type: 'love' })).status).toBe(200);
    }
    const alert = await t.buildAlert({ authorId: admin.user.id, content: 'Fire drill at three' });
    for (const { client } of [staff, other])
      expect((await client.post(`/api/posts/${alert.id}/acknowledge`)).status).toBe(200);

    const at = Date.now();
    await inTransaction(t, async (t) => {
      for (let i = 0; i < SEEDED_POSTS; i += 1)
        await insertPost(t!.db, {
          id: randomUUID(),
          authorId: other.user.id,
          content: `Seeded post ${i}`,
          category: 'wages_hr',
          isUrgent: false,
          houseTags: '[]',
          images: '[]',
          attachments: '[]',
          createdAt: at - i,
          writtenAt: at - i,
          updatedAt: at - i,
          deleted: i % 7 === 0,
        });
    });

    const conversation = await t.buildConversation(staff.user.id, other.user.id);
    expect((await staff.client.post(`/api/conversations/${conversation}/messages`, { content: 'Hello' })).status).toBe(
      201,
    );
    expect((await other.client.post(`/api/conversations/${conversation}/messages`, { content: 'Hi' })).status).toBe(
      201,
    );

    const form = new FormData();
    form.append('name', 'Margaret Hale');
    const created = await admin.client.postForm('/api/residents', form);
    expect(created.status).toBe(201);
    const resident = created.body as unknown as ResidentView; // the route answers the resident's view
    const edit = new FormData();
    edit.append('name', 'Margaret Hale');
    edit.append('medication', 'Paracetamol at night');
    expect((await admin.client.sendForm('PUT', `/api/residents/${resident.id}`, edit)).status).toBe(200);
    expect((await staff.client.get(`/api/residents/${resident.id}`)).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    if (serverRunning) {
      await t?.server.close();
      await t?.smtp.close();
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    await pool?.end();
    await postgres?.stop();
  });

  it('refuses while a server holds the data folder, and touches neither side', async () => {
    const run = await migrate(postgres!.url);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(
      /^Nothing was copied\. Another Staff Portal server \(process \d+\) is already using/,
    );
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).toEqual([]);
    await t!.server.close();
    await t!.smtp.close();
    serverRunning = false;
  }, 60_000);

  it('copies every table into an empty database, row for row, and says so', async () => {
    const run = await migrate(postgres!.url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Created the tables (PostgreSQL migrations).');
    expect(run.stdout).toMatch(/All \d+ tables and the sync counter match: committed in \d+\.\d s\./);
    expect(run.stdout).toMatch(/ {2}table +SQLite +PostgreSQL\n/);
    expect(run.stdout).toMatch(/ {2}users +4 +4\n/);
    expect(run.stdout).toMatch(new RegExp(` {2}posts +${SEEDED_POSTS + 2} +${SEEDED_POSTS + 2}\n`));
    const sides = await bothSides();
    for (const name of [
      'users',
      'user_houses',
      'posts',
      'comments',
      'reactions',
      'acknowledgements',
      'conversations',
      'conversation_members',
      'messages',
      'residents',
      'resident_versions',
      'audit_log',
      'sessions',
      'sync_counter',
    ]) {
      expect(sides[name].sqlite.length, name).toBeGreaterThan(0);
    }
    for (const [name, side] of Object.entries(sides)) expect(side.postgres, name).toEqual(side.sqlite);
  }, 120_000);

  it('keeps the sync counter, every server_seq at or below it', async () => {
    const sqlite = new Database(`${dataDir}/staff-portal.db`, { readonly: true });
    // Its row exists once anything was synced.
    const seq = (sqlite.prepare('SELECT seq FROM sync_counter WHERE id = 1').get() as { seq: number }).seq;
    sqlite.close();
    expect(seq).toBeGreaterThan(0);
    expect((await query<{ seq: string }>('SELECT seq FROM sync_counter'))[0].seq).toBe(String(seq));
    for (const table of tables.filter((each) => each.hasServerSeq)) {
      const [{ max }] = await query<{ max: string | null }>(`SELECT max(server_seq) AS max FROM "${table.name}"`);
      expect(Number(max ?? 0), table.name).toBeLessThanOrEqual(seq);
    }
  });

  it('refuses a second run into the same database, naming a table that holds rows, and changes nothing', async () => {
    const before = await bothSides();
    const run = await migrate(postgres!.url);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(/^The database is not empty: .*users.* already hold rows\./);
    expect(run.stderr).toContain('Nothing was written.');
    expect(await bothSides()).toEqual(before);
  }, 60_000);

  it('gives an unreachable server, an unknown database, an unknown user and a URL of another kind one line each', async () => {
    const closed = await migrate(`postgres://portal:secret@127.0.0.1:${await freePort()}/portal`);
    expect(closed.code).toBe(1);
    expect(closed.stderr.trim()).toMatch(
      /^Could not reach PostgreSQL at 127\.0\.0\.1:\d+: the connection was refused\. Is it running/,
    );
    const missing = await migrate(postgres!.url.replace(/\/postgres$/, '/nowhere'));
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/has no database nowhere: create it first/);
    const nobody = await migrate(postgres!.url.replace('postgres@', 'nobody@'));
    expect(nobody.code).toBe(1);
    expect(nobody.stderr.trim()).toMatch(/refused nobody: role "nobody" does not exist\.$/);
    const other = await migrate('mysql://portal@127.0.0.1/portal');
    expect(other.code).toBe(1);
    expect(other.stderr.trim()).toMatch(/^The URL must start with postgres:\/\//);
    for (const run of [closed, missing, nobody, other]) {
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).not.toContain('secret');
    }
  }, 90_000);

  it("refuses a database holding only some of the app's tables, naming those it lacks", async () => {
    await query('CREATE DATABASE partial');
    const url = postgres!.url.replace(/\/postgres$/, '/partial');
    const partial = new pg.Client({ connectionString: url });
    await partial.connect();
    try {
      await partial.query('CREATE TABLE users (id text PRIMARY KEY)');
      const run = await migrate(url);
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toMatch(
        /^The database has some of the app's tables but not \w+, \w+, \w+, \.\.\.: copy into/,
      );
      const tablesThere = await partial.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(tablesThere.rows).toEqual([{ table_name: 'users' }]);
    } finally {
      await partial.end();
    }
  }, 60_000);

  it("moves each identity's sequence past the copied ids", async () => {
    const [{ max }] = await query<{ max: string }>('SELECT max(id) AS max FROM audit_log');
    const [{ id }] = await query<{ id: string }>(
      "INSERT INTO audit_log (at, action) VALUES ($1, 'test.after_copy') RETURNING id",
      [Date.now()],
    );
    expect(Number(id)).toBeGreaterThan(Number(max));
  });

  it('rolls the whole copy back when a row cannot be copied, and copies into that database once the row is right', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-migrate-'));
    const url = postgres!.url.replace(/\/postgres$/, '/rolled_back');
    const target = new pg.Client({ connectionString: url });
    try {
      const sqlite = sqliteOf(openDb(path.join(dir, 'staff-portal.db')));
      sqlite.exec(`
        INSERT INTO users (id, email, first_name, last_name, role, is_active, created_at, updated_at)
          VALUES ('u1', 'u1@test.example', 'Ada', 'Byron', 'staff', 1, 9007199254740993, 1);
        INSERT INTO posts (id, author_id, content, category, is_urgent, created_at, updated_at, server_seq)
          VALUES ('p1', 'u1', 'Hello', 'wages_hr', 2, 1, 1, 1);
        INSERT INTO sync_counter (id, seq) VALUES (1, 1);`);
      sqlite.close();
      await query('CREATE DATABASE rolled_back');
      const failed = await runCli('server/migrate-to-postgres.ts', [url], { DATA_DIR: dir });
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toBe(
        'Copying posts failed: posts.is_urgent of row 1 holds 2, not 0 or 1. Nothing was written.',
      );
      await target.connect();
      const count = async (table: string) =>
        (await target.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
      expect([await count('users'), await count('posts'), await count('sync_counter')]).toEqual([0, 0, 0]);

      const fixed = new Database(path.join(dir, 'staff-portal.db'));
      fixed.exec("UPDATE posts SET is_urgent = 1 WHERE id = 'p1'");
      fixed.close();
      const copied = await runCli('server/migrate-to-postgres.ts', [url], { DATA_DIR: dir });
      expect(copied.code, copied.stderr).toBe(0);
      expect(copied.stdout).not.toContain('Created the tables');
      expect((await target.query('SELECT id, is_urgent FROM posts')).rows).toEqual([{ id: 'p1', is_urgent: true }]);
      // An integer past 2^53 is copied exactly, not through a JavaScript number.
      expect((await target.query('SELECT created_at FROM users')).rows).toEqual([{ created_at: '9007199254740993' }]);
    } finally {
      await target.end().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('what migrate-to-postgres says about a connection', () => {
  const url = new URL('postgres://portal:s3cret@db.internal:5433/portal');

  it('names a refused password and the address of a name none of whose addresses answered, in one line', () => {
    const password = Object.assign(new Error('password authentication failed for user "portal"'), { code: '28P01' });
    expect(connectionMessage(password, url)).toBe('PostgreSQL at db.internal:5433 refused the password of portal.');
    const refused = new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]);
    expect(connectionMessage(refused, new URL('postgres://localhost/portal'))).toMatch(
      /^Could not reach PostgreSQL at localhost:5432: the connection was refused\./,
    );
    expect(connectionMessage(new Error('Connection terminated due to connection timeout'), url)).toBe(
      'Could not reach PostgreSQL at db.internal:5433: it did not answer within 10 s.',
    );
  });

  it('never prints the password of the URL', () => {
    expect(shownUrl(url)).toBe('postgres://portal:***@db.internal:5433/portal');
  });
});
