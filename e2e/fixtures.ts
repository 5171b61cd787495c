import fs from 'node:fs';
import path from 'node:path';
import { expect, test as base, type Browser, type BrowserContext, type Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { conversationIdOf } from '../schema/chat';
import { closeDb, openDb, statement } from '../server/db/client';
import {
  findConversation,
  insertConversation,
  insertMessage,
  newConversationRow,
} from '../server/features/chat/chat.queries';
import { E2E_ADMIN, E2E_DATA_DIR } from './env';
import { serverRows, startWifi, type Wifi } from './support/offline';

export { expect };
export const ADMIN = E2E_ADMIN;

/** The newest message in the server's outbox to an address, with its link (mail without SMTP). */
export async function readOutbox(to: string, after = 0): Promise<{ text: string; link: string | null }> {
  const dir = path.join(E2E_DATA_DIR, 'outbox');
  for (let i = 0; i < 100; i += 1) {
    const files = fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.eml') && f.includes(to))
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

/** A datetime-local value `hours` from now, in the browser's time zone (the runner's). */
export function localInHours(hours: number): string {
  const d = new Date(Date.now() + hours * 3_600_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The id the server gave an account. */
export function userIdOf(email: string): string {
  const [row] = serverRows('SELECT id FROM users WHERE email = ?', [email]);
  if (!row) throw new Error(`no account ${email}`);
  return String(row.id);
}

/**
 * What the server finally holds, as the rule of docs/testing-offline.md asks: `rows` comes to equal `expected`,
 * and still does a moment later, when a second push of the same item would have arrived.
 */
export async function expectServerHolds<T>(rows: () => T, expected: T, message?: string): Promise<void> {
  // Read as unknown: the matchers are not defined for a value of a type parameter.
  const read: () => unknown = rows;
  await expect.poll(read, { message, timeout: 20_000 }).toEqual(expected);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(read(), message).toEqual(expected);
}

/**
 * A post written online has reached the server: its card shows, the server holds it, and the card no longer says
 * "Pending sync". Checked in that order: the label is absent too before the card has rendered, so alone it proves
 * nothing, and a journey that closed its page then would take the unsent post with it.
 */
export async function expectPostSent(page: Page, content: string): Promise<void> {
  const card = page.getByRole('article').filter({ hasText: content });
  await expect(card).toBeVisible();
  await expect
    .poll(() => serverRows('SELECT count(*) AS n FROM posts WHERE content = ?', [content])[0]?.n, { timeout: 15_000 })
    .toBe(1);
  await expect(card.getByText('Pending sync')).toHaveCount(0, { timeout: 15_000 });
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

/**
 * The push prompt waits while an emergency alert is open (decision 128): a journey about the prompt on a shared account
 * first acknowledges, as the person would, the alerts other journeys left pending for it.
 */
export async function acknowledgePendingAlerts(page: Page, email: string, password: string): Promise<void> {
  const api = page.request;
  expect((await api.post('/api/auth/login', { data: { email, password } })).status()).toBe(200);
  const pending = (await (await api.get('/api/alerts/unacknowledged')).json()) as { id: string }[];
  for (const { id } of pending) {
    expect((await api.post(`/api/posts/${id}/acknowledge`, { data: {} })).status()).toBe(200);
  }
  // Signed out again, so the journey signs in through the screen as it means to.
  expect((await api.post('/api/auth/logout')).status()).toBe(204);
}

/** Signs in and waits until the first sync is done: a journey that goes offline next has its local database open. */
export async function signInSynced(page: Page, account: { email: string; password: string }): Promise<void> {
  await signIn(page, account.email, account.password);
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
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

/**
 * A staff member created by the System Administrator, who then sets a password from the invitation. It makes the
 * calls the admin page and the invitation page make, without opening either (e2e/accounts.spec.ts walks those
 * screens): a journey that needs a colleague should not pay for two app loads and the administrator's whole feed.
 */
export async function createStaffMember(
  browser: Browser,
  firstName: string,
): Promise<{ email: string; name: string; password: string }> {
  const email = uniqueEmail(firstName.toLowerCase());
  const lastName = `Tester${Math.random().toString(36).slice(2, 8)}`;
  const adminContext = await browser.newContext();
  try {
    const api = adminContext.request;
    const started = Date.now();
    const signedIn = await api.post('/api/auth/login', { data: { email: ADMIN.email, password: ADMIN.password } });
    expect(signedIn.status(), 'the administrator signs in').toBe(200);
    const created = await api.post('/api/admin/users', { data: { email, firstName, lastName, userType: 'staff' } });
    expect(created.status(), 'the administrator adds the member').toBe(201);
    const mail = await readOutbox(email, started - 1);
    const token = new URL(mail.link!).searchParams.get('token');
    const chosen = await api.post('/api/auth/reset-password', { data: { token, password: STAFF_PASSWORD } });
    expect(chosen.status(), 'the member chooses a password from the invitation').toBe(200);
  } finally {
    await adminContext.close();
  }
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
export async function seedConversation(emailA: string, emailB: string, count: number): Promise<string> {
  const file = path.join(E2E_DATA_DIR, 'staff-portal.db');
  if (!fs.existsSync(file)) throw new Error(`no e2e database at ${file}`);
  // Opened the way the server opens it (server/db/client.ts); its migrations are applied already.
  const db = openDb(file);
  try {
    const idOf = async (email: string) => {
      const row = await statement<unknown[], { id: string }>(db, 'SELECT id FROM users WHERE email = ?').get([email]);
      if (!row) throw new Error(`no account ${email}`);
      return row.id;
    };
    const [a, b] = [await idOf(emailA), await idOf(emailB)];
    const id = conversationIdOf(a, b);
    const now = Date.now();
    const first = now - (count + 1) * 60_000;
    if (!(await findConversation(db, id))) await insertConversation(db, newConversationRow(a, b, first));
    for (let i = 1; i <= count; i += 1) {
      await insertMessage(db, {
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
    await closeDb(db);
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
