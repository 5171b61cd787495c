import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Page } from '@playwright/test';
import { E2E_CLIENT_DIR } from './env';
import { acknowledgePendingAlerts, ADMIN, expect, signIn, test } from './fixtures';

/**
 * Serves a new version of the service worker and waits until the page's registration holds it waiting. A changed
 * script is a new version: the served file (and its compressed copies, which the server prefers) gets a comment;
 * the returned function puts them back.
 */
async function serveNextVersion(page: Page): Promise<() => void> {
  const swFile = path.join(E2E_CLIENT_DIR, 'sw.js');
  const copies = [swFile, `${swFile}.br`, `${swFile}.gz`].filter((file) => fs.existsSync(file));
  const originals = new Map(copies.map((file) => [file, fs.readFileSync(file)]));
  const next = `${originals.get(swFile)!.toString('utf8')}\n// next version ${Date.now()}\n`;
  fs.writeFileSync(swFile, next);
  if (originals.has(`${swFile}.br`)) fs.writeFileSync(`${swFile}.br`, zlib.brotliCompressSync(next));
  if (originals.has(`${swFile}.gz`)) fs.writeFileSync(`${swFile}.gz`, zlib.gzipSync(next));
  const restore = () => originals.forEach((bytes, file) => fs.writeFileSync(file, bytes));
  try {
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    await expect
      .poll(() => page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration())?.waiting)))
      .toBe(true);
  } catch (error) {
    restore();
    throw error;
  }
  return restore;
}

test('a push delivered to the service worker shows its notification', async ({ browser, baseURL }) => {
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin: baseURL });
  const page = await context.newPage();
  await acknowledgePendingAlerts(page, ADMIN.email, ADMIN.password);
  await signIn(page, ADMIN.email, ADMIN.password, { pushPrompt: true });
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  // With permission granted and the flag unset, the prompt comes once, 2 s after load.
  await expect(page.getByRole('dialog', { name: 'Enable Push Notifications' })).toBeVisible({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Not Now' }).click();
  expect(await page.evaluate(() => localStorage.getItem('hasSeenPushPrompt'))).toBe('true');
  await page.reload();
  await page.waitForTimeout(2500);
  await expect(page.getByRole('dialog', { name: 'Enable Push Notifications' })).toHaveCount(0);

  const cdp = await context.newCDPSession(page);
  const { targetInfo } = await cdp.send('Target.getTargetInfo');
  const versions: { registrationId: string; status: string; controlledClients?: string[] }[] = [];
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => versions.push(...event.versions));
  await cdp.send('ServiceWorker.enable');
  // The registration whose activated worker controls this page: the browser reports others too (earlier contexts',
  // a waiting version's), and a push sent to one of those shows nothing here.
  const own = () =>
    versions.find((v) => v.status === 'activated' && v.controlledClients?.includes(targetInfo.targetId))
      ?.registrationId;
  await expect.poll(own, { message: 'the activated worker that controls the page' }).toBeDefined();
  const payload = {
    title: 'Emergency alert',
    body: 'New urgent message from System. Open Staff Portal to read and acknowledge it.',
    tag: 'urgent-p1',
    data: { type: 'urgent', postId: 'p1', urgent: true },
  };
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: new URL(baseURL!).origin,
    registrationId: own()!,
    data: JSON.stringify(payload),
  });
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.ready;
        return (await registration.getNotifications()).map((n) => [n.title, n.body, n.tag]);
      }),
    )
    .toEqual([[payload.title, payload.body, payload.tag]]);
  await context.close();
});

test('a new version waiting shows "App Update Available"; Later hides it for the session, Update Now reloads into it', async ({
  browser,
}) => {
  // Four page loads and two service worker installs: on a loaded two-core CI machine that passed 60 s once.
  test.setTimeout(120_000);
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);

  const restore = await serveNextVersion(page);
  try {
    const banner = page.getByRole('status').filter({ hasText: 'App Update Available' });
    await expect(banner).toBeVisible();
    await banner.getByRole('button', { name: 'Later' }).click();
    await expect(banner).toHaveCount(0);
    await page.reload();
    await page.waitForTimeout(1500);
    await expect(banner).toHaveCount(0);

    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await expect(banner).toBeVisible();
    const reloaded = page.waitForEvent('load');
    await banner.getByRole('button', { name: 'Update Now' }).click();
    await reloaded;
    await expect(page.getByRole('region', { name: 'Create a post' })).toBeVisible();
    await expect(banner).toHaveCount(0);
  } finally {
    restore();
  }
  await context.close();
});

test('signed out, the landing offers a waiting version too', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto('/');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  const restore = await serveNextVersion(page);
  try {
    await expect(page.getByRole('heading', { name: /^Welcome to/ })).toBeVisible();
    const banner = page.getByRole('status').filter({ hasText: 'App Update Available' });
    await expect(banner).toBeVisible();
    await expect(banner.getByRole('button', { name: 'Update Now' })).toBeVisible();
    await expect(banner.getByRole('button', { name: 'Later' })).toBeVisible();
  } finally {
    restore();
  }
});
