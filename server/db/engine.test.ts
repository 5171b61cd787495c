import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../test/postgres';
import { PostgresEngine } from './engine';
import { isServerLost } from './hosts';

const bin = postgresOrSkip();

/** Runs one statement on a cluster directly, outside the engine. */
async function on<R extends pg.QueryResultRow>(cluster: TestPostgres, sql: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Makes the cluster's new sessions refuse writes (25006), or take them again. */
async function setReadOnly(cluster: TestPostgres, readOnly: boolean): Promise<void> {
  await on(cluster, `ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`);
  await on(cluster, 'SELECT pg_reload_conf()');
}

/** Ends every other client's session, as a primary's demotion or a restart does. */
async function cutSessions(cluster: TestPostgres): Promise<void> {
  await on(
    cluster,
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
}

const countOn = async (cluster: TestPostgres) =>
  (await on<{ n: number }>(cluster, 'SELECT count(*)::int AS n FROM t'))[0]!.n;

/**
 * The engine's pool on a URL naming two servers with target_session_attrs=read-write (server/db/hosts.ts), with two
 * plain clusters standing in for a primary and its standby: a switch of roles is what a failover looks like to it.
 */
describe.skipIf(bin === null)('the PostgreSQL engine on a URL naming a primary and a standby', () => {
  let first: TestPostgres;
  let second: TestPostgres;
  let engine: PostgresEngine;

  beforeAll(async () => {
    [first, second] = await Promise.all([startTestPostgres(bin), startTestPostgres(bin)]);
    for (const cluster of [first, second]) await on(cluster, 'CREATE TABLE t (n int)');
    const port = (cluster: TestPostgres) => new URL(cluster.url).port;
    engine = new PostgresEngine(
      `postgres://postgres@/postgres?host=127.0.0.1,127.0.0.1&port=${port(first)},${port(second)}` +
        '&target_session_attrs=read-write',
    );
  }, 60_000);

  afterAll(async () => {
    await engine?.close();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  const insert = (n: number) => engine.root.query('INSERT INTO t VALUES (?)', [n], 'run');

  it('writes to the writable one, and moves to the other when roles switch, refusing at most the write in flight', async () => {
    await setReadOnly(second, true);
    await insert(1);
    expect([await countOn(first), await countOn(second)]).toEqual([1, 0]);

    // The first is demoted (its sessions cut, and read-only from then on) and the second promoted.
    await setReadOnly(first, true);
    await cutSessions(first);
    await setReadOnly(second, false);
    const refused: unknown[] = [];
    let taken = false;
    for (let attempt = 0; !taken && attempt < 5; attempt += 1) {
      taken = await insert(10 + attempt).then(
        () => true,
        (error: unknown) => {
          refused.push(error);
          return false;
        },
      );
    }
    expect(taken, `refused: ${refused.map(String).join('; ')}`).toBe(true);
    expect(refused.length).toBeLessThanOrEqual(1);
    for (const error of refused) expect(isServerLost(error)).toBe(true);
    await engine.root.transaction((tx) => tx.query('INSERT INTO t VALUES (?)', [100], 'run'));
    expect([await countOn(first), await countOn(second)]).toEqual([1, 2]);
  });

  it('outlives the server ending a connection it holds between statements, and goes on', async () => {
    const result = await engine.exclusive('a long job', async () => {
      await cutSessions(second);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return 'done';
    });
    expect(result).toBe('done');
    await insert(200);
    expect(await countOn(second)).toBe(3);
  });
});
