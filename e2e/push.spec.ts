import { ADMIN, expect, signIn, test } from './fixtures';

test('a push delivered to the service worker shows its notification', async ({ browser, baseURL }) => {
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin: baseURL });
  const page = await context.newPage();
  await signIn(page, ADMIN.email, ADMIN.password, { pushPrompt: true });
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  // With permission granted and the flag unset, the prompt comes once, 2 s after load.
  await expect(page.getByRole('dialog', { name: 'Enable Push Notifications' })).toBeVisible({ timeout: 5000 });
  await page.getByRole('button', { name: 'Not Now' }).click();
  expect(await page.evaluate(() => localStorage.getItem('hasSeenPushPrompt'))).toBe('true');
  await page.reload();
  await page.waitForTimeout(2500);
  await expect(page.getByRole('dialog', { name: 'Enable Push Notifications' })).toHaveCount(0);

  const cdp = await context.newCDPSession(page);
  const registrations: { registrationId: string; scopeURL: string }[] = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
  await cdp.send('ServiceWorker.enable');
  await expect.poll(() => registrations.length).toBeGreaterThan(0);
  const payload = {
    title: 'Emergency alert',
    body: 'New urgent message from System. Open Staff Portal to read and acknowledge it.',
    tag: 'urgent-p1',
    data: { type: 'urgent', postId: 'p1', urgent: true },
  };
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: new URL(baseURL!).origin,
    registrationId: registrations[0].registrationId,
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
