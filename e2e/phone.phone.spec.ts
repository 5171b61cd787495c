import { ADMIN, expect, signIn, test } from './fixtures';

test('on a phone: sign in, see the header, open the profile menu, sign out and leave no local data', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByText('Shared Computer Notice')).toBeVisible();
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect
    .poll(() => page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name).join(',')))
    .toMatch(/sp_/);
  await page.screenshot({ path: 'test-results/phone-home.png' });
  // The desktop sidebar is not rendered on a phone at all (decision 99); a wide window has it (e2e/chat.spec.ts).
  await expect(page.getByRole('main', { name: 'Home feed' })).toBeVisible();
  await expect(page.locator('aside.feed-sidebar')).toHaveCount(0);
  await page.getByRole('button', { name: /profile menu|account menu|open profile/i }).click();
  await expect(page.getByRole('menuitem', { name: 'Sign Out' })).toBeVisible();
  await expect(page.getByText(ADMIN.email).last()).toBeVisible();
  await expect(page.getByText('System Administrator').last()).toBeVisible();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
  const left = await page.evaluate(async () =>
    (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.includes('sp_')),
  );
  expect(left).toEqual([]);
  const status = await page.evaluate(async () => (await fetch('/api/auth/user')).status);
  expect(status).toBe(401);
});
