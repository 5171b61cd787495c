import { expectAllControlsReachable, expectFocusTrapped, expectNoSeriousViolations } from './a11y';
import { acknowledgePendingAlerts, ADMIN, expect, signIn, test } from './fixtures';

/** Phone size: the screens and the dialogs that differ on a small screen (the slide-out menu, full-screen chat). */

test('phone: landing and sign-in screens', async ({ page }) => {
  for (const path of ['/', '/login']) {
    await page.goto(path);
    await expect(page.getByRole('heading').first()).toBeVisible();
    await expectNoSeriousViolations(page, `${path} on a phone`);
    await expectAllControlsReachable(page, `${path} on a phone`);
  }
});

test('phone: feed, slide-out menu, full-screen chat and residents', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page.getByRole('region', { name: 'Create a post' })).toBeVisible();
  await expectNoSeriousViolations(page, 'home feed on a phone');
  await expectAllControlsReachable(page, 'home feed on a phone', page.getByRole('main'));

  const menuButton = page.getByRole('button', { name: 'Open menu' });
  await menuButton.click();
  const menu = page.getByRole('dialog').filter({ has: page.getByRole('navigation', { name: 'Menu' }) });
  await expect(menu).toBeVisible();
  await expectNoSeriousViolations(page, 'slide-out menu');
  await expectFocusTrapped(page, menu, 'the slide-out menu', menuButton);

  await menuButton.click();
  await menu.getByRole('button', { name: /^Chat/ }).click();
  const panel = page.getByRole('dialog', { name: /Messages/ });
  await expect(panel).toBeVisible();
  await expectNoSeriousViolations(page, 'chat panel on a phone');
  await expectFocusTrapped(page, panel, 'the chat panel on a phone');
  await page.keyboard.press('Escape');

  await page.goto('/residents');
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  await expectNoSeriousViolations(page, 'residents page on a phone');
});

test('phone: the push prompt is a sheet at the foot of the screen over the undimmed feed', async ({ page }) => {
  await acknowledgePendingAlerts(page, ADMIN.email, ADMIN.password);
  await signIn(page, ADMIN.email, ADMIN.password, { pushPrompt: true });
  const prompt = page.getByRole('dialog', { name: 'Enable Push Notifications' });
  await expect(prompt).toBeVisible({ timeout: 10_000 });
  await expectNoSeriousViolations(page, 'push prompt on a phone');
  await expectFocusTrapped(page, prompt, 'the push prompt on a phone');
  // The sheet sits at the foot of the screen and leaves the feed above it in view, not dimmed (decision 104).
  const viewport = page.viewportSize()!;
  const box = (await prompt.boundingBox())!;
  expect(viewport.height - (box.y + box.height)).toBeLessThanOrEqual(24);
  expect(box.y).toBeGreaterThan(viewport.height / 3);
  const overlay = await page.evaluate(() =>
    [...document.querySelectorAll('.overlay')].map((element) => getComputedStyle(element).backgroundColor),
  );
  expect(overlay).toEqual(['rgba(0, 0, 0, 0)']);
  await expect(page.getByRole('region', { name: 'Create a post' })).toBeInViewport();
  // A tap on the feed above the sheet closes it, as a tap outside any dialog does; the prompt does not come back.
  await page.mouse.click(viewport.width / 2, 90);
  await expect(prompt).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('hasSeenPushPrompt'))).toBe('true');
});
