import type { BrowserContext, Locator, Page } from '@playwright/test';
import { ADMIN, expect, expectServerHolds, signInSynced, test } from './fixtures';
import {
  closeInstalledApp,
  newProfileDir,
  openInstalledApp,
  removeProfileDir,
  serverRows,
  startKillableServer,
} from './support/offline';

/**
 * Each primitive of the offline kit (docs/testing-offline.md) as a person meets it, and what the server finally
 * holds: every post written through a failure is stored exactly once and its card stops saying "Pending sync".
 */

const PUSH = '/api/sync/posts/push';

/** A short random word, so each journey finds its own posts on the shared e2e server. */
const tag = () => Math.random().toString(36).slice(2, 8);

const postCard = (page: Page, text: string): Locator => page.getByRole('article').filter({ hasText: text });

/** The live posts with exactly this text on a server (the suite's own unless a data folder is given). */
const postsWith = (text: string, dataDir?: string) =>
  serverRows('SELECT id FROM posts WHERE content = ? AND deleted = 0', [text], dataDir);

async function writePost(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(text);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
}

/** The post reached the server exactly once, the device knows it, and nothing more arrives later. */
async function expectStoredOnce(page: Page, text: string, dataDir?: string): Promise<void> {
  await expectServerHolds(() => postsWith(text, dataDir).length, 1);
  await expect(postCard(page, text).getByText('Pending sync')).toHaveCount(0, { timeout: 20_000 });
}

/** The posts pushes that failed in the browser, as the app saw them. */
function failedPushes(context: BrowserContext): string[] {
  const failed: string[] = [];
  context.on('requestfailed', (request) => {
    if (new URL(request.url()).pathname === PUSH) failed.push(request.failure()?.errorText ?? 'failed');
  });
  return failed;
}

test('a post whose answer is lost is stored by the server, retried by the app, and held once', async ({
  wifiContext,
  wifiPage: page,
  wifi,
}) => {
  await signInSynced(page, ADMIN);
  const failed = failedPushes(wifiContext);
  const text = `The answer never came ${tag()}`;
  const lost = wifi.loseNextAnswer(PUSH);
  await writePost(page, text);
  await lost;
  // The server has it; the device saw its push fail and still shows the post as unsent.
  expect(postsWith(text)).toHaveLength(1);
  await expect.poll(() => failed.length).toBeGreaterThan(0);
  await expect(postCard(page, text).getByText('Pending sync')).toBeVisible();
  await expectStoredOnce(page, text);
});

test('a push that hangs leaves the post pending and, once the link moves again, it is stored once', async ({
  wifiPage: page,
  wifi,
}) => {
  await signInSynced(page, ADMIN);
  const text = `Held somewhere on the way ${tag()}`;
  const hang = wifi.hangNext(PUSH);
  await writePost(page, text);
  await hang.arrived;
  await expect(postCard(page, text).getByText('Pending sync')).toBeVisible();
  await page.waitForTimeout(1000);
  expect(postsWith(text)).toHaveLength(0);
  // The app gives a request up only after 60 s (docs/sync.md, "Push"): the held request goes on instead.
  hang.release();
  await expectStoredOnce(page, text);
});

test('a post written on a slow link arrives once', async ({ wifiPage: page, wifi }) => {
  await signInSynced(page, ADMIN);
  wifi.slow(1000);
  const text = `Sent over a weak signal ${tag()}`;
  await writePost(page, text);
  await expect(postCard(page, text).getByText('Pending sync')).toBeVisible();
  await expectStoredOnce(page, text);
  wifi.slow(0);
});

test('a post written while the server is killed arrives once after it restarts', async ({ browser }) => {
  const server = await startKillableServer();
  try {
    const context = await browser.newContext({ baseURL: server.baseURL });
    const page = await context.newPage();
    await signInSynced(page, ADMIN);
    await server.kill();
    const text = `Written while the server was down ${tag()}`;
    await writePost(page, text);
    await expect(page.getByText('Server Unreachable')).toBeVisible({ timeout: 15_000 });
    await expect(postCard(page, text).getByText('Pending sync')).toBeVisible();
    await server.restart();
    await expectStoredOnce(page, text, server.dataDir);
    await context.close();
  } finally {
    await server.close();
  }
});

test('an installed app closed with a post pending reopens signed in, offline, and sends it once', async ({ wifi }) => {
  const profile = newProfileDir();
  const { baseURL, launchOptions } = test.info().project.use;
  const options = { wifi, baseURL: baseURL!, launchOptions };
  try {
    let app = await openInstalledApp(profile, options);
    await signInSynced(app.page, ADMIN);
    // The app opens offline from its service worker's cache only once that worker controls it.
    await app.page.evaluate(() => navigator.serviceWorker.ready);
    await expect.poll(() => app.page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    await wifi.off(app.context);
    const text = `Kept in the closed app ${tag()}`;
    await writePost(app.page, text);
    await closeInstalledApp(app);

    app = await openInstalledApp(profile, { ...options, online: false });
    await expect(app.page.getByRole('button', { name: 'Profile menu' })).toBeVisible();
    await expect(postCard(app.page, text).getByText('Pending sync')).toBeVisible();
    expect(postsWith(text)).toHaveLength(0);
    await wifi.on(app.context);
    await expectStoredOnce(app.page, text);
    await closeInstalledApp(app);
  } finally {
    removeProfileDir(profile);
  }
});
