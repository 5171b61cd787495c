import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closeDb, openPostgres } from '../db/client';
import { insertUser } from '../features/users/users.queries';
import { hashPassword } from '../lib/crypto';
import { freePort, startServerProcess, type ServerProcess } from './server-process';
import { TEST_PASSWORD, TestClient } from './test-server';

/** The two accounts the several-servers tests sign in with: a staff member who reads, an admin who writes. */
export function twoAccounts() {
  return {
    reader: { id: randomUUID(), email: 'reader@test.example', role: 'staff' as const, firstName: 'Rita' },
    writer: { id: randomUUID(), email: 'writer@test.example', role: 'admin' as const, firstName: 'Wendy' },
  };
}

/** Inserts active accounts with the test password into the PostgreSQL database at `url`. */
export async function insertAccounts(
  url: string,
  accounts: { id: string; email: string; role: 'staff' | 'admin'; firstName: string }[],
): Promise<void> {
  const db = await openPostgres(url);
  const passwordHash = await hashPassword(TEST_PASSWORD);
  for (const account of accounts) {
    const now = Date.now();
    await insertUser(db, {
      ...account,
      passwordHash,
      lastName: 'Two',
      isActive: true,
      pendingApproval: false,
      createdAt: now,
      updatedAt: now,
    });
  }
  await closeDb(db);
}

/** App server processes on one PostgreSQL database (`DATABASE_URL`), each on a fresh data folder of its own. */
export class ServersOnPostgres {
  private readonly servers: ServerProcess[] = [];
  private readonly folders: string[] = [];

  constructor(private readonly databaseUrl: () => string) {}

  /** Starts one more server; `env` adds settings (TRUST_PROXY, PUBLIC_URL behind a proxy). */
  async start(env: Record<string, string> = {}): Promise<ServerProcess> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-servers-'));
    this.folders.push(dir);
    const server = await startServerProcess(
      dir,
      await freePort(),
      { DATABASE_URL: this.databaseUrl(), ...env },
      60_000,
    );
    this.servers.push(server);
    return server;
  }

  /** A client of `server` signed in as `email` with the test password; throws if the sign-in is refused. */
  async signIn(server: ServerProcess, email: string): Promise<TestClient> {
    const client = new TestClient(server.url);
    const res = await client.post('/api/auth/login', { email, password: TEST_PASSWORD });
    if (res.status !== 200) throw new Error(`signing ${email} in on ${server.url} answered ${res.status}`);
    return client;
  }

  /** Kills every server started and removes their folders. */
  async stop(): Promise<void> {
    for (const server of this.servers) await server.kill().catch(() => undefined);
    for (const dir of this.folders) fs.rmSync(dir, { recursive: true, force: true });
  }
}
