import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { ADMIN, createStaffMember, expect, signIn, test, writeUrgentPost } from './fixtures';
import { E2E_DATA_DIR } from './env';
import { startWifi, type Wifi } from './support/offline';

/** What the app says, offline or without a server, instead of claiming the server has a change (decision 116). */
const SAVED_ON_DEVICE = 'Saved on this device — it will be sent when you are back online';
const NOBODY_ALERTED = 'Saved on this device — nobody has been alerted yet';

/** A short random word, so each journey finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

/** The live posts holding `word`, as the server's own database has them. */
function serverPosts(word: string): { id: string; content: string; isUrgent: number }[] {
  const db = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare('SELECT id, content, is_urgent AS isUrgent FROM posts WHERE content LIKE ? AND deleted = 0')
      .all(`%${word}%`) as { id: string; content: string; isUrgent: number }[];
  } finally {
    db.close();
  }
}

/** The alerts the server has made for posts holding `word`, one row per person alerted. */
function serverAlerts(word: string): { userId: string }[] {
  const db = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        `SELECT a.user_id AS userId FROM acknowledgements a JOIN posts p ON p.id = a.post_id
         WHERE p.content LIKE ? AND a.deleted = 0`,
      )
      .all(`%${word}%`) as { userId: string }[];
  } finally {
    db.close();
  }
}

function userIdOf(email: string): string {
  const db = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string }).id;
  } finally {
    db.close();
  }
}

async function writePost(page: Page, content: string): Promise<void> {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(content);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
}

async function editPost(page: Page, card: Locator, content: string): Promise<void> {
  await card.getByRole('button', { name: 'Edit post' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Post' });
  await dialog.getByLabel('Content').fill(content);
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(dialog).toHaveCount(0);
}

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });
/** The banner under the header (the chat panel has its own copy). */
const banner = (page: Page): Locator => page.getByRole('region', { name: 'Sync status' });

/** The first load is not controlled by the service worker; it claims the page once it has installed. */
async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
}

/**
 * A browser whose connection goes through a Wi-Fi the journey controls (e2e/support/offline.ts), signed in, with its local
 * database open and its first sync done: going offline earlier could leave the database's code unloaded.
 */
async function device(
  browser: Browser,
  account: { email: string; password: string },
): Promise<{ wifi: Wifi; context: BrowserContext; page: Page }> {
  const wifi = await startWifi();
  const context = await browser.newContext({ proxy: wifi.proxy });
  const page = await context.newPage();
  await signIn(page, account.email, account.password);
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
  return { wifi, context, page };
}

test('an edit saved offline says it is only on this device, and reaches the server once back online', async ({
  browser,
}) => {
  const member = await createStaffMember(browser, 'Edna');
  const { wifi, context, page } = await device(browser, member);
  const word = tag();
  const text = `Medication round at 8 ${word}`;
  await writePost(page, text);
  const card = postCard(page, text);
  await expect(card.getByText('Pending sync')).toHaveCount(0, { timeout: 15_000 });

  await wifi.off(context);
  await expect(banner(page).getByText('Working Offline')).toBeVisible();
  const edited = `Medication round moved to 9 ${word}`;
  await editPost(page, card.first(), edited);
  await expect(page.getByText(SAVED_ON_DEVICE, { exact: true }).first()).toBeVisible();
  await expect(page.getByText('Your post has been updated successfully.')).toHaveCount(0);
  await expect(banner(page).getByText('1 pending')).toBeVisible();
  // The banner shows once on the feed.
  await expect(page.getByText('Working Offline')).toHaveCount(1);
  expect(serverPosts(word).map((post) => post.content)).toEqual([text]);

  await wifi.on(context);
  await expect(banner(page)).toHaveCount(0, { timeout: 15_000 });
  await expect.poll(() => serverPosts(word).map((post) => post.content), { timeout: 15_000 }).toEqual([edited]);

  // Online again, the spec's own words.
  const again = `Medication round moved to 10 ${word}`;
  await editPost(page, postCard(page, edited), again);
  await expect(page.getByText('Your post has been updated successfully.').first()).toBeVisible();
  await expect.poll(() => serverPosts(word).map((post) => post.content), { timeout: 15_000 }).toEqual([again]);
  await context.close();
  await wifi.close();
});

test('an urgent post written offline says nobody has been alerted yet; online it reaches the server once and alerts', async ({
  browser,
}) => {
  const colleague = await createStaffMember(browser, 'Bea');
  const { wifi, context, page } = await device(browser, ADMIN);
  await wifi.off(context);
  await expect(banner(page).getByText('Working Offline')).toBeVisible();

  const word = tag();
  await writeUrgentPost(page, `Lift out of order at Giles House ${word}`);
  await expect(page.getByText(NOBODY_ALERTED, { exact: true }).first()).toBeVisible();
  await expect(page.getByText('The alert goes out when you are back online.').first()).toBeVisible();
  await expect(banner(page).getByText('1 pending')).toBeVisible();
  expect(serverPosts(word)).toEqual([]);

  await wifi.on(context);
  await expect(banner(page)).toHaveCount(0, { timeout: 15_000 });
  await expect.poll(() => serverPosts(word).length, { timeout: 15_000 }).toBe(1);
  expect(serverPosts(word)[0]).toMatchObject({ content: `Lift out of order at Giles House ${word}`, isUrgent: 1 });
  const alerted = serverAlerts(word).map((alert) => alert.userId);
  expect(alerted.filter((id) => id === userIdOf(colleague.email))).toHaveLength(1);
  await context.close();
  await wifi.close();
});

test('offline, the banner shows on residents and admin and in the open chat', async ({ browser }) => {
  const { wifi, context, page } = await device(browser, ADMIN);
  // The other screens' code comes from the service worker's precache while offline.
  await waitForServiceWorker(page);
  await wifi.off(context);
  await expect(banner(page).getByText('Working Offline')).toBeVisible();

  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Residents OPP' }).click();
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  await expect(banner(page).getByText('Working Offline')).toBeVisible();
  await expect(banner(page).getByText('Your changes will sync when reconnected')).toBeVisible();

  await nav.getByRole('link', { name: 'Admin Dashboard' }).click();
  await expect(page.getByText('User Management Panel')).toBeVisible();
  await expect(banner(page).getByText('Working Offline')).toBeVisible();

  await page.getByRole('banner').getByRole('button', { name: /^Chat/ }).click();
  const chat = page.getByRole('dialog', { name: 'Messages' });
  await expect(chat.getByText('Working Offline')).toBeVisible();
  await expect(chat.getByText('Synced', { exact: true })).toBeVisible();
  // The page's own copy is covered by the panel, not shown a second time.
  await expect(page.getByText('Working Offline').filter({ visible: true })).toHaveCount(1);
  await chat.getByRole('button', { name: 'Close chat' }).click();
  await expect(banner(page).getByText('Working Offline')).toBeVisible();

  await wifi.on(context);
  await expect(banner(page)).toHaveCount(0, { timeout: 15_000 });
  await context.close();
  await wifi.close();
});

test('a server that answers 503 is said to be unreachable, not "Syncing Changes", until it is back', async ({
  browser,
}) => {
  const member = await createStaffMember(browser, 'Uma');
  const { wifi, context, page } = await device(browser, member);
  const word = tag();
  const first = `Laundry van comes on Tuesday ${word}`;
  await writePost(page, first);
  await expect(postCard(page, first).getByText('Pending sync')).toHaveCount(0, { timeout: 15_000 });

  wifi.serverDown(true);
  // The live stream is cut and meets the 503 when it reconnects; nothing is pending yet.
  await expect(banner(page).getByText('Server Unreachable')).toBeVisible({ timeout: 15_000 });
  await expect(
    banner(page).getByText('Your changes are kept on this device and will be sent when the server is back'),
  ).toBeVisible();
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);
  // From here on, "Syncing Changes" must never show while the server is down.
  await page.evaluate(() => {
    const seen = { syncing: false };
    (window as unknown as { bannerSeen: typeof seen }).bannerSeen = seen;
    new MutationObserver(() => {
      if (document.body.innerText.includes('Syncing Changes')) seen.syncing = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  const second = `Laundry van also on Friday ${word}`;
  await writePost(page, second);
  await editPost(page, postCard(page, first), `Laundry van comes on Wednesday ${word}`);
  await expect(page.getByText(SAVED_ON_DEVICE, { exact: true }).first()).toBeVisible();
  await expect(banner(page).getByText('2 pending')).toBeVisible();
  // Past RxDB's retry and the stream's reconnect (5 s each): still unreachable, never syncing.
  await page.waitForTimeout(6_000);
  await expect(banner(page).getByText('Server Unreachable')).toBeVisible();
  expect(await page.evaluate(() => (window as unknown as { bannerSeen: { syncing: boolean } }).bannerSeen)).toEqual({
    syncing: false,
  });
  expect(serverPosts(word).map((post) => post.content)).toEqual([first]);

  wifi.serverDown(false);
  await expect(banner(page)).toHaveCount(0, { timeout: 20_000 });
  await expect
    .poll(
      () =>
        serverPosts(word)
          .map((post) => post.content)
          .sort(),
      { timeout: 15_000 },
    )
    .toEqual([`Laundry van also on Friday ${word}`, `Laundry van comes on Wednesday ${word}`]);
  await context.close();
  await wifi.close();
});
