/**
 * Two bench servers on one PostgreSQL database in a throwaway cluster (server/test/postgres.ts, fsync off), as
 * bench/two-servers.ts and bench/active-load.ts deploy them, and PostgreSQL's own CPU counted apart from theirs.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { findPostgresBin, startTestPostgres, type TestPostgres } from '../server/test/postgres';
import { childrenOf, cpuMs, startServerProcess, type BenchDatabase, type ServerProcess } from './sim-server';

/** Why a bench cannot deploy the pair here; null when it can. */
export function postgresMissing(): string | null {
  return findPostgresBin() === null ? 'PostgreSQL not found (set PG_BIN or install postgresql)' : null;
}

export interface PostgresPair {
  /** Both servers, in delivery mode: the first seeded the database, the second joined it. */
  servers: ServerProcess[];
  /** CPU PostgreSQL's processes have used so far, in ms. */
  databaseCpuMs: () => number;
  /** Stops both servers and the cluster, and removes the cluster's folder. */
  stop: () => Promise<void>;
}

/** The app's database in the cluster, in byte order: the app refuses any other collation (server/db/client.ts). */
async function createDatabase(postgres: TestPostgres): Promise<string> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    await client.query("CREATE DATABASE bench TEMPLATE template0 LOCALE 'C'");
  } finally {
    await client.end();
  }
  const url = new URL(postgres.url);
  url.pathname = '/bench';
  return url.href;
}

/** The cluster's postmaster: the first line of postmaster.pid in its data folder. */
function postmasterOf(postgres: TestPostgres): number {
  return Number(fs.readFileSync(path.join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

/**
 * CPU PostgreSQL's processes have used, in ms: the postmaster's own and its ended children's, plus each live child's.
 * A child that ends between the listing and its read counts nothing until the postmaster has waited for it.
 */
function postgresCpuMs(postmaster: number): number {
  let sum = cpuMs(postmaster, true);
  for (const pid of childrenOf(postmaster)) {
    try {
      sum += cpuMs(pid);
    } catch {
      // it ended after the listing
    }
  }
  return sum;
}

/**
 * Starts a throwaway cluster and two delivery servers on one database in it, seeded for `users` (the first seeds
 * SQLite and copies it in, the second joins). The caller stops the pair; should its process end without that (a
 * signal), the cluster is stopped too.
 */
export async function startPostgresPair(users: number): Promise<PostgresPair> {
  const postgres = await startTestPostgres(findPostgresBin());
  const postmaster = postmasterOf(postgres);
  const orphaned = () => {
    try {
      process.kill(postmaster, 'SIGQUIT');
    } catch {
      // already stopped
    }
  };
  process.once('exit', orphaned);
  const servers: ServerProcess[] = [];
  const stop = async () => {
    for (const server of servers) await server.stop();
    await postgres.stop();
    process.off('exit', orphaned);
  };
  try {
    const database: BenchDatabase = { engine: 'postgres', url: await createDatabase(postgres) };
    const first = await startServerProcess(users, 'delivery', { database });
    servers.push(first);
    servers.push(await startServerProcess(users, 'delivery', { database, joining: first }));
  } catch (error) {
    await stop();
    throw error;
  }
  return { servers, databaseCpuMs: () => postgresCpuMs(postmaster), stop };
}
