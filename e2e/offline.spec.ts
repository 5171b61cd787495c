import { ADMIN, expect, signIn, test } from './fixtures';

test('the installed app opens and reloads without a connection, still signed in', async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
}) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  // The first load is not controlled by the service worker: wait for it, then reload (STACK-NOTES).
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.reload();
  await expect.poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller))).toBe(true);
  const manifest = await page.request.get('/manifest.webmanifest');
  expect(manifest.ok()).toBe(true);
  expect(await manifest.json()).toMatchObject({ name: 'Staff Portal', display: 'standalone', theme_color: '#4C307D' });

  await wifi.off(context);
  const response = await page.reload();
  expect(response?.fromServiceWorker()).toBe(true);
  await expect(page.getByRole('button', { name: /profile menu|account menu|open profile/i })).toBeVisible();
  // The local database's worker (decision 88) starts offline too: its script comes from the precache.
  await expect
    .poll(() => page.workers().some((worker) => new URL(worker.url()).pathname.includes('storage-worker')))
    .toBe(true);
  await page.goto('/admin');
  await expect(page.getByText('User Management Panel')).toBeVisible();
  await wifi.on(context);
});
