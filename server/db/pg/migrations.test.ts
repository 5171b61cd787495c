import { eq, getTableColumns, getTableName, is } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS_DIR } from '../../lib/paths';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../../test/postgres';
import * as pgTables from './tables';

const bin = postgresOrSkip();

describe.skipIf(bin === null)('the PostgreSQL migrations, applied to a real PostgreSQL', () => {
  let postgres: TestPostgres | undefined;
  let pool: pg.Pool | undefined;
  let db: NodePgDatabase<typeof pgTables>;

  beforeAll(async () => {
    postgres = await startTestPostgres(bin);
    pool = new pg.Pool({ connectionString: postgres.url });
    db = drizzle(pool, { schema: pgTables });
    await migrate(db, { migrationsFolder: PG_MIGRATIONS_DIR });
  });

  afterAll(async () => {
    await pool?.end();
    await postgres?.stop();
  });

  const query = async <T extends object>(text: string, values: unknown[] = []) =>
    (await pool!.query<T>(text, values)).rows; // set in beforeAll

  const insertUser = async (id: string) =>
    query(
      'INSERT INTO users (id, email, first_name, last_name, role, is_active, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)',
      [id, `${id}@test.example`, 'Test', 'User', 'staff', true, Date.now()],
    );

  it('creates every table with its columns and their nullability', async () => {
    const rows = await query<{ table_name: string; column_name: string; is_nullable: string }>(
      "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
    );
    const tables: PgTable[] = Object.values(pgTables).filter((value) => is(value, PgTable));
    expect(tables.length).toBeGreaterThan(30);
    for (const table of tables) {
      const expected = Object.values(getTableColumns(table)).map((c) => `${c.name} ${c.notNull ? 'NO' : 'YES'}`);
      const found = rows
        .filter((row) => row.table_name === getTableName(table))
        .map((row) => `${row.column_name} ${row.is_nullable}`);
      expect(found.sort(), getTableName(table)).toEqual(expected.sort());
    }
  });

  it('refuses to change or remove an audit log entry, in the words SQLite uses', async () => {
    await query("INSERT INTO audit_log (at, action) VALUES ($1, 'test.entry')", [Date.now()]);
    await expect(query("UPDATE audit_log SET action = 'changed'")).rejects.toThrow('audit_log is append-only');
    await expect(query('DELETE FROM audit_log')).rejects.toThrow('audit_log is append-only');
    await expect(query('TRUNCATE audit_log')).rejects.toThrow('audit_log is append-only');
    expect(await query('SELECT action FROM audit_log')).toEqual([{ action: 'test.entry' }]);
  });

  it("keeps a resident's history append-only, except for forgetting a deleted account", async () => {
    await insertUser('history-author');
    await query("INSERT INTO residents (id, name, created_at, updated_at, server_seq) VALUES ('r1', 'Ann', 1, 1, 1)");
    await query(
      "INSERT INTO resident_versions (resident_id, version, action, changed_by, changed_at) VALUES ('r1', 1, 'create', 'history-author', 1)",
    );
    await expect(query("UPDATE resident_versions SET changes = '[1]'")).rejects.toThrow(
      'resident_versions is append-only',
    );
    await expect(query('UPDATE resident_versions SET changed_by = NULL, version = 2')).rejects.toThrow(
      'resident_versions is append-only',
    );
    await expect(query('DELETE FROM resident_versions')).rejects.toThrow('resident_versions is append-only');
    await query("DELETE FROM users WHERE id = 'history-author'");
    expect(await query('SELECT version, changed_by FROM resident_versions')).toEqual([
      { version: '1', changed_by: null },
    ]);
  });

  it("seeds what SQLite's migrations seed: no row; the sync counter's row comes from its first upsert", async () => {
    expect(await query('SELECT * FROM sync_counter')).toEqual([]);
    const takeSeq =
      'INSERT INTO sync_counter (id, seq) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET seq = sync_counter.seq + 1 RETURNING seq';
    expect((await query<{ seq: string }>(takeSeq))[0].seq).toBe('1');
    expect((await query<{ seq: string }>(takeSeq))[0].seq).toBe('2');
  });

  it('writes and reads a user through the derived table: a boolean as a boolean, a time past 2^31 as a number', async () => {
    const createdAt = 1_795_303_714_386;
    await db.insert(pgTables.users).values({
      id: 'drizzle-user',
      email: 'drizzle-user@test.example',
      firstName: 'Dee',
      lastName: 'Rizzle',
      role: 'admin',
      isActive: true,
      createdAt,
      updatedAt: createdAt + 1,
    });
    const [user] = await db.select().from(pgTables.users).where(eq(pgTables.users.id, 'drizzle-user'));
    expect(user).toMatchObject({
      isActive: true,
      pendingApproval: false,
      createdAt,
      updatedAt: createdAt + 1,
      serverSeq: 0,
      accountType: 'employee',
      lastLoginAt: null,
    });
    expect(typeof user.createdAt).toBe('number');
  });
});
