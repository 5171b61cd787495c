import path from 'node:path';
import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { ADMIN, createStaffMember, expect, readOutbox, signIn, test } from './fixtures';
import { E2E_DATA_DIR } from './env';
import {
  closeInstalledApp,
  newProfileDir,
  openInstalledApp,
  readableOnDevice,
  removeProfileDir,
  waitForServiceWorker,
  type InstalledApp,
  type Wifi,
} from './support/offline';

/**
 * Nothing written offline is lost (decision 114): an installed app closed and opened again, sign-outs, the idle
 * rule and a session ended elsewhere, each with items still unsent. The app is a persistent Chromium profile, so
 * closing it keeps its storage and its cookies as a phone's installed app does; both come from the offline kit.
 */

const tag = () => Math.random().toString(36).slice(2, 8);

/** What the feed says when a delete on the server won over the user's change (decision 117). */
const NOT_KEPT = 'A post you changed while offline was deleted; your changes were not kept';

/** Opens the installed app (the kit's persistent profile) on the project's Chromium and address. */
function openApp(profile: string, wifi: Wifi, online = true): Promise<InstalledApp> {
  const { launchOptions, baseURL } = test.info().project.use;
  return openInstalledApp(profile, { wifi, online, baseURL: baseURL!, launchOptions });
}

/** The server's own record, read from its database file. */
function serverRows(sql: string, ...args: unknown[]): Record<string, unknown>[] {
  const db = new Database(path.join(E2E_DATA_DIR, 'staff-portal.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...args) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

const postsWith = (text: string) => serverRows('SELECT id FROM posts WHERE content = ? AND deleted = 0', text);
const commentsWith = (text: string) => serverRows('SELECT id FROM comments WHERE content = ? AND deleted = 0', text);
const logoutsOf = (email: string) =>
  serverRows(
    "SELECT a.id FROM audit_log a JOIN users u ON u.id = a.actor_id WHERE a.action = 'auth.logout' AND u.email = ?",
    email,
  ).length;

const postCard = (page: Page, text: string) => page.getByRole('article').filter({ hasText: text });

/** Writes a post and a comment on it, as a care worker does; both stay pending while offline. */
async function writePostAndComment(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(text);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const card = postCard(page, text);
  await expect(card.getByText('Pending sync').first()).toBeVisible();
  await card.getByRole('button', { name: '0 comments' }).click();
  await card.getByLabel('Write a comment').fill(`Comment on ${text}`);
  await card.getByRole('button', { name: 'Add comment' }).click();
  await expect(card.getByText(`Comment on ${text}`)).toBeVisible();
}

/** The post and its comment reached the server, each exactly once. */
async function expectOnServerOnce(text: string): Promise<void> {
  await expect.poll(() => postsWith(text).length, { timeout: 20_000 }).toBe(1);
  await expect.poll(() => commentsWith(`Comment on ${text}`).length, { timeout: 20_000 }).toBe(1);
  // Nothing more arrives later (a second push of the same items).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(postsWith(text)).toHaveLength(1);
  expect(commentsWith(`Comment on ${text}`)).toHaveLength(1);
}

/** Signs in through the sign-in screen of an app that is already open. */
async function signInHere(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
}

/** Signs out through the profile menu. */
async function openSignOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
}

test.describe('nothing written offline is lost', () => {
  let wifi: Wifi;
  let profile: string;
  // The device's Wi-Fi is the test's `wifi` fixture, which a hook shares with its test and closes after it.
  test.beforeEach(async ({ wifi: deviceWifi }) => {
    wifi = deviceWifi;
    profile = newProfileDir();
  });
  test.afterEach(() => {
    removeProfileDir(profile);
  });

  test('an app closed with items pending opens again signed in, online or offline, and sends them once', async ({
    browser,
  }) => {
    const member = await createStaffMember(browser, 'Closer');
    let app = await openApp(profile, wifi);
    await signInHere(app.page, member.email, member.password);
    await waitForServiceWorker(app.page);

    // Written offline, then the app is closed.
    const first = `Closed with this pending ${tag()}`;
    await wifi.off(app.context);
    await writePostAndComment(app.page, first);
    await closeInstalledApp(app);

    // Opened again online: still signed in, and the items go.
    app = await openApp(profile, wifi);
    await expect(app.page.getByRole('button', { name: 'Profile menu' })).toBeVisible();
    await expectOnServerOnce(first);
    await expect(postCard(app.page, first).getByText('Pending sync')).toHaveCount(0);

    // Written offline again, closed, and opened again without a connection: the items are shown as pending.
    const second = `Closed and reopened offline ${tag()}`;
    await wifi.off(app.context);
    await writePostAndComment(app.page, second);
    await closeInstalledApp(app);
    app = await openApp(profile, wifi, false);
    await expect(postCard(app.page, second).getByText('Pending sync').first()).toBeVisible();
    await expect(app.page.getByText('2 pending')).toBeVisible();
    await wifi.on(app.context);
    await expectOnServerOnce(second);
    await closeInstalledApp(app);
  });

  test('signing out with items pending asks first, keeps them sealed, and sends them at the next sign-in', async ({
    browser,
  }) => {
    const member = await createStaffMember(browser, 'Leaver');
    const other = await createStaffMember(browser, 'Nextshift');
    const app = await openApp(profile, wifi);
    const { page, context } = app;
    await signInHere(page, member.email, member.password);
    await waitForServiceWorker(page);
    const text = `Signed out before this was sent ${tag()}`;
    await wifi.off(context);
    await writePostAndComment(page, text);

    // Asked first; staying signed in is the default and keeps everything.
    await openSignOut(page);
    const dialog = page.getByRole('alertdialog', { name: 'Sign out with unsent items?' });
    await expect(dialog).toContainText('You have 2 unsent items that have not reached the server yet.');
    await expect(dialog.getByRole('button', { name: 'Stay signed in' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();
    await expect(page.getByText('2 pending')).toBeVisible();

    // Signing out anyway, offline: nothing of the user stays readable, the items stay sealed.
    const logoutsBefore = logoutsOf(member.email);
    await openSignOut(page);
    await dialog
      .getByRole('button', { name: 'Sign out anyway — they will be sent next time you sign in on this device' })
      .click();
    await expect(page.getByText('You have been logged out successfully')).toBeVisible();
    await expect(
      page.getByText('2 unsent items are waiting on this device and will be sent after signing in.'),
    ).toBeVisible();
    const left = await readableOnDevice(page);
    expect(left.stores).toEqual([]);
    expect(left.kept).not.toBe('');
    expect(left.kept).not.toContain(text);

    // Back online: the sign-out reaches the server (revoked and audited) before anything else.
    await wifi.on(context);
    await page.goto('/login');
    await expect.poll(() => logoutsOf(member.email)).toBe(logoutsBefore + 1);
    await expect(page.getByRole('status').filter({ hasText: 'waiting on this device' })).toHaveText(
      '2 unsent items are waiting on this device and will be sent after signing in.',
    );

    // Someone else signs in on this device: they never see it, and it is not sent under their name.
    await signInHere(page, other.email, other.password);
    await expect(page.getByRole('region', { name: 'Create a post' })).toBeVisible();
    await page.waitForTimeout(1500);
    await expect(postCard(page, text)).toHaveCount(0);
    expect(postsWith(text)).toHaveLength(0);
    await openSignOut(page);
    await expect(page.getByText('You have been logged out successfully')).toBeVisible();

    // The author signs in again: their items go first, once, and they are told.
    await signInHere(page, member.email, member.password);
    await expect(page.getByText('Unsent items delivered').first()).toBeVisible();
    await expectOnServerOnce(text);
    await expect(postCard(page, text)).toBeVisible();
    await page.goto('/login');
    await expect(page.getByText('waiting on this device')).toHaveCount(0);
    await context.close();
  });

  test('an app reopened after the idle rule ended its session starts signed out, offline, and keeps the items', async ({
    browser,
  }) => {
    const member = await createStaffMember(browser, 'Dozer');
    let app = await openApp(profile, wifi);
    await signInHere(app.page, member.email, member.password);
    await waitForServiceWorker(app.page);
    const text = `Written before a long break ${tag()}`;
    await wifi.off(app.context);
    await writePostAndComment(app.page, text);
    // The phone is put away: the last activity was 31 minutes before it is opened again.
    await app.page.evaluate(() => localStorage.setItem('sp_last_active', String(Date.now() - 31 * 60_000)));
    await closeInstalledApp(app);

    app = await openApp(profile, wifi, false);
    // No care data of the dead session: the app opens signed out, and the items wait sealed.
    await expect(app.page.getByRole('button', { name: 'Profile menu' })).toHaveCount(0);
    await expect.poll(async () => (await readableOnDevice(app.page)).stores).toEqual([]);
    await app.page.goto('/login');
    await expect(app.page.getByText('2 unsent items are waiting on this device')).toBeVisible();

    await wifi.on(app.context);
    await signInHere(app.page, member.email, member.password);
    await expectOnServerOnce(text);
    await closeInstalledApp(app);
  });

  test('the inactivity logout names the unsent items and keeps them', async ({ browser }) => {
    const member = await createStaffMember(browser, 'Idler');
    const app = await openApp(profile, wifi);
    const { page, context } = app;
    await page.clock.install();
    await signInHere(page, member.email, member.password);
    await waitForServiceWorker(page);
    const text = `Left unsent at the end of a shift ${tag()}`;
    await wifi.off(context);
    await writePostAndComment(page, text);

    await page.clock.fastForward('25:01');
    await expect(page.getByText('Your 2 unsent items will be kept on this device').first()).toBeVisible();
    await page.clock.fastForward('05:00');
    await expect(page.getByRole('button', { name: 'Profile menu' })).toHaveCount(0);
    expect((await readableOnDevice(page)).stores).toEqual([]);

    await wifi.on(context);
    await signInHere(page, member.email, member.password);
    await expectOnServerOnce(text);
    await context.close();
  });

  test('a session ended elsewhere while offline keeps the items for the next sign-in', async ({ browser }) => {
    const member = await createStaffMember(browser, 'Resetter');
    const app = await openApp(profile, wifi);
    const { page, context } = app;
    await signInHere(page, member.email, member.password);
    await waitForServiceWorker(page);
    const text = `Written while my password was reset ${tag()}`;
    await wifi.off(context);
    await writePostAndComment(page, text);

    // The password is reset from another device, which ends every session of the account.
    const started = Date.now();
    const elsewhere = await browser.newContext();
    const other = await elsewhere.newPage();
    await other.goto('/forgot-password');
    await other.getByLabel('Email').fill(member.email);
    await other.getByRole('button', { name: 'Send Reset Instructions' }).click();
    await expect(other.getByRole('heading', { name: 'Check Your Email' })).toBeVisible();
    const mail = await readOutbox(member.email, started - 1);
    await other.goto(mail.link!);
    const password = 'New!Password2026';
    await other.getByLabel('New Password').fill(password);
    await other.getByLabel('Confirm Password').fill(password);
    await other.getByRole('button', { name: /Reset Password|Set Password|Save/ }).click();
    await expect(other.getByText('Password Changed!')).toBeVisible();
    await elsewhere.close();

    // Back online, the device learns the session is over: signed out, the items kept.
    await wifi.on(context);
    await expect(page.getByText('Unauthorized').first()).toBeVisible({ timeout: 20_000 });
    await expect(page).toHaveURL(/\/login/);
    await expect(page.getByText('2 unsent items are waiting on this device')).toBeVisible();
    expect(postsWith(text)).toHaveLength(0);

    await signInHere(page, member.email, password);
    await expectOnServerOnce(text);
    await context.close();
  });

  test('kept work on a post an administrator deleted meanwhile tells its author at the next sign-in, with their words', async ({
    browser,
  }) => {
    // Two sign-ins, a sign-out that seals, an offline edit and an administrator's session: about twice the others.
    test.slow();
    const member = await createStaffMember(browser, 'Keeper');
    const app = await openApp(profile, wifi);
    const { page, context } = app;
    await signInHere(page, member.email, member.password);
    await waitForServiceWorker(page);
    const word = tag();
    const original = `Bins go out on Tuesday ${word}`;
    const composer = page.getByRole('region', { name: 'Create a post' });
    await composer.getByLabel('Post content').fill(original);
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    await expect.poll(() => postsWith(original).length).toBe(1);
    await expect(postCard(page, original).getByText('Pending sync')).toHaveCount(0);

    // Offline: the post is edited and commented on, and another post with its comment is written.
    await wifi.off(context);
    const edited = `Bins go out on Wednesday this week ${word}`;
    await postCard(page, original).getByRole('button', { name: 'Edit post' }).click();
    const editor = page.getByRole('dialog', { name: 'Edit Post' });
    await editor.getByLabel('Content').fill(edited);
    await editor.getByRole('button', { name: 'Save Changes' }).click();
    await expect(editor).toHaveCount(0);
    const comment = `I will take them out ${word}`;
    const card = postCard(page, edited);
    await card.getByRole('button', { name: '0 comments' }).click();
    await card.getByLabel('Write a comment').fill(comment);
    await card.getByRole('button', { name: 'Add comment' }).click();
    await expect(card.getByText(comment)).toBeVisible();
    const other = `Sent with the same batch ${word}`;
    await writePostAndComment(page, other);
    await expect(page.getByText('4 pending')).toBeVisible();
    await openSignOut(page);
    await page
      .getByRole('alertdialog', { name: 'Sign out with unsent items?' })
      .getByRole('button', { name: 'Sign out anyway — they will be sent next time you sign in on this device' })
      .click();
    await expect(page.getByText('You have been logged out successfully')).toBeVisible();

    // Meanwhile an administrator deletes the post, through the same call the admin's feed makes.
    const [{ id }] = serverRows('SELECT id FROM posts WHERE content = ?', original);
    const adminContext = await browser.newContext();
    const admin = await adminContext.newPage();
    await signIn(admin, ADMIN.email, ADMIN.password);
    expect((await admin.request.delete(`/api/posts/${String(id)}`)).status()).toBe(204);
    await adminContext.close();

    // Signing in again: the notice names what was lost, in the user's words; the rest arrives once.
    await wifi.on(context);
    await signInHere(page, member.email, member.password);
    const notice = page.getByRole('status').filter({ hasText: NOT_KEPT });
    await expect(notice).toBeVisible({ timeout: 20_000 });
    await expect(notice.getByText(edited)).toBeVisible();
    await expect(notice.getByText(comment)).toBeVisible();
    await expectOnServerOnce(other);
    expect(serverRows('SELECT content, deleted FROM posts WHERE id = ?', id)).toEqual([{ content: '', deleted: 1 }]);
    expect(serverRows('SELECT id FROM comments WHERE content = ?', comment)).toEqual([]);
    expect(postsWith(edited)).toEqual([]);
    await context.close();
  });

  test('an administrator account signs in and out with nothing pending without being asked', async () => {
    const app = await openApp(profile, wifi);
    await signIn(app.page, ADMIN.email, ADMIN.password);
    await openSignOut(app.page);
    await expect(app.page.getByText('You have been logged out successfully')).toBeVisible();
    await closeInstalledApp(app);
  });
});
