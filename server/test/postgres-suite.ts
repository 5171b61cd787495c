import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { closeDb, openPostgres } from '../db/client';
import { findPostgresBin, POSTGRES_SKIPPED, startTestPostgres } from './postgres';

/** The migrated database every test server's PostgreSQL database is copied from. */
const TEMPLATE = 'staff_portal_template';

/**
 * Vitest's global setup. With `TEST_DATABASE=postgres` (the second pass of `npm test`), one throwaway cluster serves
 * the whole run: migrated once into a template, each test server then gets a copy of its own (`testDatabase`).
 * Without it, nothing: the suite runs on SQLite.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.TEST_DATABASE !== 'postgres') return undefined;
  const bin = findPostgresBin();
  if (bin === null) throw new Error(POSTGRES_SKIPPED);
  const cluster = await startTestPostgres(bin);
  try {
    await adminQuery(cluster.url, `CREATE DATABASE ${TEMPLATE}`);
    await closeDb(await openPostgres(withDatabase(cluster.url, TEMPLATE)));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  process.env.TEST_POSTGRES_URL = cluster.url;
  return () => cluster.stop();
}

/**
 * A fresh, migrated PostgreSQL database for one test server when the run is on PostgreSQL; null on SQLite.
 * `drop` removes it, closing what is still connected.
 */
export async function testDatabase(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const admin = process.env.TEST_POSTGRES_URL;
  if (!admin) return null;
  const name = `t_${randomUUID().replaceAll('-', '')}`;
  await adminQuery(admin, `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`);
  return {
    url: withDatabase(admin, name),
    drop: () => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}
