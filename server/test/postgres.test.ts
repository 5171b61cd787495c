import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { findPostgresBin, freePort, POSTGRES_SKIPPED, postgresOrSkip, startTestPostgres } from './postgres';

const empty = mkdtempSync(path.join(os.tmpdir(), 'no-postgres-'));
const nowhere = { env: {}, debian: empty, pgConfig: path.join(empty, 'pg_config') };
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('finding PostgreSQL for the tests', () => {
  it('finds nothing where there are no binaries, and says once that the PostgreSQL tests are skipped', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(findPostgresBin(nowhere)).toBeNull();
    expect(postgresOrSkip(nowhere)).toBeNull();
    expect(postgresOrSkip(nowhere)).toBeNull();
    expect(warn.mock.calls).toEqual([[POSTGRES_SKIPPED]]);
    warn.mockRestore();
  });

  it('refuses a PG_BIN that holds no initdb, rather than skipping', () => {
    expect(() => findPostgresBin({ ...nowhere, env: { PG_BIN: empty } })).toThrow(
      `PG_BIN is set to ${empty}, which holds no initdb.`,
    );
  });
});

const bin = postgresOrSkip();

describe.skipIf(bin === null)('a throwaway PostgreSQL', () => {
  it('takes PG_BIN first', () => {
    expect(findPostgresBin({ ...nowhere, env: { PG_BIN: bin ?? '' } })).toBe(bin);
  });

  it('answers queries on its URL, then stops and leaves no folder behind', async () => {
    const postgres = await startTestPostgres(bin);
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query<{ fsync: string }>('SHOW fsync');
    expect(rows[0].fsync).toBe('off');
    const { rows: socket } = await client.query<{ unix_socket_directories: string }>('SHOW unix_socket_directories');
    await client.end();
    await postgres.stop();
    await postgres.stop();
    expect(existsSync(socket[0].unix_socket_directories)).toBe(false);
    const after = new pg.Client({ connectionString: postgres.url });
    await expect(after.connect()).rejects.toThrow();
  });

  it('tries another port when the free one it found was taken before it started', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as net.AddressInfo).port; // a TCP server's address is an AddressInfo
    const ports = [takenPort];
    const postgres = await startTestPostgres(bin, async () => ports.shift() ?? freePort());
    try {
      expect(postgres.url).not.toContain(`:${takenPort}/`);
      const client = new pg.Client({ connectionString: postgres.url });
      await client.connect();
      await client.end();
    } finally {
      await postgres.stop();
      taken.close();
    }
  });
});
