import fs from 'node:fs';
import path from 'node:path';
import { expect, test as base, type Browser, type BrowserContext, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { conversationIdOf } from '../schema/chat';
import type { Db } from '../server/db/client';
import * as tables from '../server/db/tables';
import {
  findConversation,
  insertConversation,
  insertMessage,
  newConversationRow,
} from '../server/features/chat/chat.queries';
import { E2E_ADMIN, E2E_DATA_DIR } from './env';
import { startWifi, type Wifi } from './support/offline';

export { expect };
export const ADMIN = E2E_ADMIN;

/** The newest message in the server's outbox to an address, with its link (mail without SMTP). */
export async function readOutbox(to: string, after = 0): Promise<{ text: string; link: string | null }> {
  const dir = path.join(E2E_DATA_DIR, 'outbox');
  for (let i = 0; i < 100; i += 1) {
    const files = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => f.includes(to))
          .sort()
      : [];
    const fresh = files.filter((f) => Number(f.split('-')[0]) > after);
    if (fresh.length) {
      const raw = fs.readFileSync(path.join(dir, fresh[fresh.length - 1]), 'utf8');
      const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      return { text, link: /https?:\/\/\S+/.exec(text)?.[0] ?? null };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to} in ${dir}`);
}

/** A unique e-mail for one test run, so journeys never depend on each other's data. */
export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@care.example`;
}

/**
 * Signs in through the real sign-in screen. The "Enable Push Notifications" prompt (2 s after load, once per
 * browser) is marked as seen first so it does not cover the journeys, unless `pushPrompt` asks for it.
 */
export async function signIn(
  page: Page,
  email: string,
  password: string,
  { pushPrompt = false }: { pushPrompt?: boolean } = {},
): Promise<void> {
  if (!pushPrompt) await page.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
}

/** Collects every request a context's pages make to another origin than the app's (no third-party hosts). */
function watchForeignRequests(target: Page | BrowserContext, baseURL: string): string[] {
  const foreign: string[] = [];
  target.on('request', (request) => {
    const url = new URL(request.url());
    if (!['http:', 'https:'].includes(url.protocol)) return;
    if (url.origin !== new URL(baseURL).origin) foreign.push(request.url());
  });
  return foreign;
}

/**
 * Every request the page makes must go to the app's own origin (no third-party hosts). A journey that goes
 * offline takes `wifi` (the kit's Wi-Fi, docs/testing-offline.md) and `wifiPage`/`wifiContext`, a context whose
 * traffic goes through it, held to the same own-origin rule.
 */
export const test = base.extend<{ ownOriginOnly: void; wifi: Wifi; wifiContext: BrowserContext; wifiPage: Page }>({
  ownOriginOnly: [
    async ({ page, baseURL }, use) => {
      const foreign = watchForeignRequests(page, baseURL!);
      await use();
      expect(foreign, 'requests to third-party hosts').toEqual([]);
    },
    { auto: true },
  ],
  // Fixtures must destructure their dependencies; the Wi-Fi has none.
  // eslint-disable-next-line no-empty-pattern
  wifi: async ({}, use) => {
    const wifi = await startWifi();
    await use(wifi);
    await wifi.close();
  },
  wifiContext: async ({ browser, wifi, baseURL }, use) => {
    const context = await browser.newContext({ proxy: wifi.proxy });
    const foreign = watchForeignRequests(context, baseURL!);
    await use(context);
    await context.close();
    expect(foreign, 'requests to third-party hosts').toEqual([]);
  },
  wifiPage: async ({ wifiContext }, use) => use(await wifiContext.newPage()),
});

export const STAFF_PASSWORD = 'Care!Worker2026';

/** A staff member created by the System Administrator on /admin, who then sets a password from the invitation. */
export async function createStaffMember(
  browser: Browser,
  firstName: string,
): Promise<{ email: string; name: string; password: string }> {
  const email = uniqueEmail(firstName.toLowerCase());
  const lastName = `Tester${Math.random().toString(36).slice(2, 8)}`;
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  const started = Date.now();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto('/admin');
  await admin.getByLabel('Email').fill(email);
  await admin.getByLabel('First Name').fill(firstName);
  await admin.getByLabel('Last Name').fill(lastName);
  await admin.getByRole('button', { name: /Add Staff Member|Create User|Add User/ }).click();
  await expect(admin.getByText('User created successfully').first()).toBeVisible();
  const mail = await readOutbox(email, started - 1);
  await adminContext.close();

  const inviteContext = await browser.newContext();
  const invite = await inviteContext.newPage();
  await invite.goto(mail.link!);
  await invite.getByLabel('New Password').fill(STAFF_PASSWORD);
  await invite.getByLabel('Confirm Password').fill(STAFF_PASSWORD);
  await invite.getByRole('button', { name: /Reset Password|Set Password|Save/ }).click();
  await expect(invite.getByText('Password Changed!')).toBeVisible();
  await inviteContext.close();
  return { email, name: `${firstName} ${lastName}`, password: STAFF_PASSWORD };
}

/** Opens a new chat with the colleague whose name matches `name`, from the sidebar's Chat button. */
export async function openChatWith(page: Page, name: string): Promise<void> {
  await page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page
    .getByRole('list', { name: 'Colleagues' })
    .getByRole('button', { name: new RegExp(name) })
    .click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

/** Writes an urgent post through the composer, to all staff or to the staff of the given houses. */
export async function writeUrgentPost(page: Page, content: string, houses: string[] = []): Promise<void> {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(content);
  await composer.getByLabel('Mark as urgent').click();
  if (houses.length > 0) {
    await composer.getByText('Chosen houses').click();
    for (const house of houses) await composer.getByRole('group', { name: 'Alert houses' }).getByText(house).click();
  }
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
}

/** Sets the houses a staff member works in, as a System Administrator does on /admin; ends back on the feed. */
export async function setStaffHouses(admin: Page, email: string, houses: string[]): Promise<void> {
  await admin.goto('/admin');
  const row = admin.getByTestId(`user-${email}`);
  await row.getByRole('button', { name: 'Houses' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Houses' });
  for (const house of houses) await dialog.getByText(house).click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText(`Houses: ${houses.join(', ')}`);
  await admin.goto('/');
}

/**
 * Writes a long conversation between two accounts straight into the e2e server's database, through the
 * server's own queries (so every message takes its place in the sync sequence): `count` messages, alternately
 * from each side, one a minute up to a minute ago, reading "Seeded message 1" to "Seeded message {count}".
 * Clients signing in afterwards pull them as they would any message.
 */
export function seedConversation(emailA: string, emailB: string, count: number): string {
  const sqlite = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  // The tables' own types; the server opens the same file the same way (server/db/client.ts).
  const db = drizzle(sqlite, { schema: tables }) as Db;
  try {
    const idOf = (email: string) => {
      const row = sqlite.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string } | undefined;
      if (!row) throw new Error(`no account ${email}`);
      return row.id;
    };
    const [a, b] = [idOf(emailA), idOf(emailB)];
    const id = conversationIdOf(a, b);
    const now = Date.now();
    const first = now - (count + 1) * 60_000;
    if (!findConversation(db, id)) insertConversation(db, newConversationRow(a, b, first));
    for (let i = 1; i <= count; i += 1) {
      insertMessage(db, {
        id: crypto.randomUUID(),
        conversationId: id,
        senderId: i % 2 ? a : b,
        content: `Seeded message ${i}`,
        createdAt: first + i * 60_000,
        writtenAt: first + i * 60_000,
      });
    }
    return id;
  } finally {
    sqlite.close();
  }
}

/**
 * Makes an account `ageMs` older in the e2e server's database, as if it had been made that long ago: the server
 * keeps no item as written before its author's account existed (decision 119).
 */
export function ageAccount(email: string, ageMs: number): void {
  const sqlite = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { fileMustExist: true });
  try {
    sqlite.pragma('busy_timeout = 5000');
    const { changes } = sqlite
      .prepare('UPDATE users SET created_at = created_at - ? WHERE email = ?')
      .run(ageMs, email);
    if (changes !== 1) throw new Error(`no account ${email}`);
  } finally {
    sqlite.close();
  }
}
