import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Role } from '../schema/roles';
import { ensureClientBuilt } from './build-client';
import { ConfigError, loadConfig } from './config';
import { openDb, type Db } from './db/client';
import { hashPassword } from './lib/crypto';
import { insertUser } from './features/users/users.queries';
import { databaseFile, startServer } from './server';

/** Every demo account shares this password; the data folder is thrown away when the demo stops. */
export const DEMO_PASSWORD = 'Demo!Pass2026';

const STAFF: [string, string, Role][] = [
  ['Sarah', 'Mitchell', 'system_admin'],
  ['James', 'Okafor', 'admin'],
  ['Priya', 'Sharma', 'admin'],
  ['Tom', 'Barker', 'staff'],
  ['Aisha', 'Begum', 'staff'],
  ['Liam', 'Doyle', 'staff'],
  ['Chloe', 'Evans', 'staff'],
  ['Marek', 'Nowak', 'staff'],
  ['Grace', 'Adeyemi', 'staff'],
  ['Owen', 'Price', 'staff'],
  ['Hannah', 'Clarke', 'staff'],
  ['Daniel', 'Hughes', 'staff'],
];

/** Fills a fresh database with believable sample accounts (later issues add posts, chats, residents). */
export async function seedDemo(db: Db, now = Date.now()): Promise<{ email: string; role: Role }[]> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const accounts = STAFF.map(([firstName, lastName, role], i) => {
    const email = `${firstName}.${lastName}@demo.example`.toLowerCase();
    insertUser(db, {
      id: randomUUID(),
      email,
      passwordHash,
      firstName,
      lastName,
      role,
      isActive: true,
      pendingApproval: false,
      createdAt: now - (STAFF.length - i) * 86_400_000,
      updatedAt: now,
    });
    return { email, role };
  });
  insertUser(db, {
    id: randomUUID(),
    email: 'new.starter@demo.example',
    passwordHash,
    firstName: 'Nia',
    lastName: 'Starter',
    role: 'staff',
    isActive: false,
    pendingApproval: true,
    requestedRole: 'staff',
    createdAt: now - 3_600_000,
    updatedAt: now,
  });
  return accounts;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'staff-portal-demo-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, ADMIN_EMAIL: undefined, ADMIN_PASSWORD: undefined });
  await ensureClientBuilt((m) => console.log(m));
  const db = openDb(databaseFile(config));
  const accounts = await seedDemo(db);
  db.$client.close();
  const server = await startServer(config);
  console.log(`\nStaff Portal demo is running at ${server.url}`);
  console.log(`Sign in with any of these accounts, password ${DEMO_PASSWORD}:`);
  for (const a of accounts.slice(0, 4)) console.log(`  ${a.email.padEnd(32)} ${a.role}`);
  console.log(`  ...and ${accounts.length - 4} more staff; one registration awaits approval on the admin page.`);
  console.log(`Data is in ${dataDir} and is deleted when you stop the demo (Ctrl+C).\n`);
  const stop = async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  });
}
