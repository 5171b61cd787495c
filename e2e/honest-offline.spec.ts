import type { Locator, Page } from '@playwright/test';
import {
  ADMIN,
  createStaffMember,
  expect,
  expectPostSent,
  expectServerHolds,
  signInSynced,
  test,
  userIdOf,
  writeUrgentPost,
} from './fixtures';
import { serverRows, waitForServiceWorker } from './support/offline';

/** What the app says, offline or without a server, instead of claiming the server has a change (decision 116). */
const SAVED_ON_DEVICE = 'Saved on this device — it will be sent when you are back online';
const NOBODY_ALERTED = 'Saved on this device — nobody has been alerted yet';

/** A short random word, so each journey finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

/** The live posts holding `word`, as the server's own database has them, in the order of their text. */
const serverPosts = (word: string) =>
  serverRows('SELECT content, is_urgent AS isUrgent FROM posts WHERE content LIKE ? AND deleted = 0 ORDER BY content', [
    `%${word}%`,
  ]);
const contentsOf = (word: string) => serverPosts(word).map((post) => post.content);

/** The alerts the server has made for posts holding `word`, one row per person alerted. */
const serverAlerts = (word: string) =>
  serverRows(
    `SELECT a.user_id AS userId FROM acknowledgements a JOIN posts p ON p.id = a.post_id
     WHERE p.content LIKE ? AND a.deleted = 0`,
    [`%${word}%`],
  );

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

test('an edit saved offline says it is only on this device, and reaches the server once back online', async ({
  browser,
  wifi,
  wifiContext: context,
  wifiPage: page,
}) => {
  const member = await createStaffMember(browser, 'Edna');
  await signInSynced(page, member);
  const word = tag();
  const text = `Medication round at 8 ${word}`;
  await writePost(page, text);
  const card = postCard(page, text);
  await expectPostSent(page, text);

  await wifi.off(context);
  await expect(banner(page).getByText('Working Offline')).toBeVisible();
  const edited = `Medication round moved to 9 ${word}`;
  await editPost(page, card.first(), edited);
  await expect(page.getByText(SAVED_ON_DEVICE, { exact: true }).first()).toBeVisible();
  await expect(page.getByText('Your post has been updated successfully.')).toHaveCount(0);
  await expect(banner(page).getByText('1 pending')).toBeVisible();
  // The banner shows once on the feed.
  await expect(page.getByText('Working Offline')).toHaveCount(1);
  expect(contentsOf(word)).toEqual([text]);

  await wifi.on(context);
  await expect(banner(page)).toHaveCount(0, { timeout: 15_000 });
  await expectServerHolds(() => contentsOf(word), [edited]);

  // Online again, the usual success toast (docs/behaviour.md, "Posts and categories").
  const again = `Medication round moved to 10 ${word}`;
  await editPost(page, postCard(page, edited), again);
  await expect(page.getByText('Your post has been updated successfully.').first()).toBeVisible();
  await expect.poll(() => contentsOf(word), { timeout: 15_000 }).toEqual([again]);
});

test('an urgent post written offline says nobody has been alerted yet; online it reaches the server once and alerts', async ({
  browser,
  wifi,
  wifiContext: context,
  wifiPage: page,
}) => {
  const colleague = await createStaffMember(browser, 'Bea');
  await signInSynced(page, ADMIN);
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
  await expectServerHolds(
    () => serverPosts(word),
    [{ content: `Lift out of order at Giles House ${word}`, isUrgent: 1 }],
  );
  const alerted = serverAlerts(word).map((alert) => alert.userId);
  expect(alerted.filter((id) => id === userIdOf(colleague.email))).toHaveLength(1);
});

test('offline, the banner shows on residents and admin and in the open chat', async ({
  wifi,
  wifiContext: context,
  wifiPage: page,
}) => {
  await signInSynced(page, ADMIN);
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
});

test('a server that answers 503 is said to be unreachable, not "Syncing Changes", until it is back', async ({
  browser,
  wifi,
  wifiPage: page,
}) => {
  const member = await createStaffMember(browser, 'Uma');
  await signInSynced(page, member);
  const word = tag();
  const first = `Laundry van comes on Tuesday ${word}`;
  await writePost(page, first);
  await expectPostSent(page, first);

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
  expect(contentsOf(word)).toEqual([first]);

  wifi.serverDown(false);
  await expect(banner(page)).toHaveCount(0, { timeout: 20_000 });
  // The new post and the edit, each once.
  await expectServerHolds(
    () => contentsOf(word),
    [`Laundry van also on Friday ${word}`, `Laundry van comes on Wednesday ${word}`],
  );
});
