import type { Page } from '@playwright/test';
import { ADMIN, expect, localInHours, readOutbox, signInSynced, STAFF_PASSWORD, test, uniqueEmail } from './fixtures';
import { readableOnDevice, serverRows } from './support/offline';
import { setServerClockAhead } from './support/server-clock';

/**
 * An agency worker's access ends on the server's clock (decisions 145 and 151): the journey moves that clock past the
 * end and puts it back after. Each worker has a server of its own and runs its
 * journeys one at a time (decision 160), so no other sees the moved time.
 */
test.describe.configure({ mode: 'serial' });

const HOUR = 3_600_000;

/** The admin adds an agency worker through the admin page, with access ending in `hours`. */
async function addAgencyWorker(page: Page, email: string, hours: number): Promise<void> {
  await page.goto('/admin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First Name').fill('Aggie');
  await page.getByLabel('Last Name').fill('Temp');
  await page.getByRole('combobox', { name: 'Type', exact: true }).click();
  await page.getByRole('option', { name: 'Agency staff' }).click();
  await page.getByLabel('Access ends').fill(localInHours(hours));
  await page.getByRole('button', { name: 'Add Staff Member' }).click();
  await expect(page.getByText('User created successfully').first()).toBeVisible();
  await expect(page.getByTestId(`user-${email}`).getByText('Access ends in 3 days')).toBeVisible();
}

test('an agency worker added for 3 days is signed out at the end with a clear message, their unsent post kept sealed', async ({
  page,
  wifi,
  wifiPage: worker,
  wifiContext,
}) => {
  test.slow();
  const email = uniqueEmail('agency-end');
  const added = Date.now();
  await page.goto('/login');
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
  // A few minutes over 3 days, so the admin page shows whole days as "3".
  await addAgencyWorker(page, email, 72.1);
  await page.close();

  // The worker sets a password from the invitation and signs in on their own device.
  const invite = await readOutbox(email, added - 1);
  const token = new URL(invite.link!).searchParams.get('token');
  const chosen = await worker.request.post('/api/auth/reset-password', { data: { token, password: STAFF_PASSWORD } });
  expect(chosen.status()).toBe(200);
  await signInSynced(worker, { email, password: STAFF_PASSWORD });

  // Offline, they write a post; it waits on the device.
  const text = `Handed the keys to the night shift ${Math.random().toString(36).slice(2, 8)}`;
  await wifi.off(wifiContext);
  const composer = worker.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(text);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  await expect(worker.getByRole('article').filter({ hasText: text }).getByText('Pending sync').first()).toBeVisible();

  try {
    // Three days and an hour later on the server's clock, the access has ended.
    await setServerClockAhead(73 * HOUR);
    const ended = () =>
      serverRows(
        "SELECT u.is_active AS active FROM users u JOIN audit_log a ON a.target_id = u.id AND a.action = 'user.access_expired' WHERE u.email = ?",
        [email],
      );
    await expect.poll(ended, { timeout: 10_000 }).toEqual([{ active: 0 }]);

    // Back online, the device hears why: on the sign-in screen, the message, nothing of theirs readable, the post kept.
    await wifi.on(wifiContext);
    await expect(worker).toHaveURL(/\/login/, { timeout: 20_000 });
    // The sign-in screen's notice (its title is "Access Ended"; the toast's, "Access ended").
    await expect(worker.getByRole('status').filter({ hasText: /^Access Ended/ })).toContainText(
      'Your access has ended. Ask an administrator if you still need it.',
    );
    await expect(worker.getByText('Unauthorized')).toHaveCount(0);
    await expect(worker.getByText('1 unsent item is waiting on this device')).toBeVisible();
    const left = await readableOnDevice(worker);
    expect(left.stores).toEqual([]);
    expect(left.kept).not.toContain(text);
    expect(serverRows('SELECT id FROM posts WHERE content = ?', [text])).toEqual([]);

    // Signing in again is refused as for any deactivated account.
    await worker.getByLabel('Email').fill(email);
    await worker.getByLabel('Password', { exact: true }).fill(STAFF_PASSWORD);
    await worker.getByRole('button', { name: 'Sign In' }).click();
    await expect(worker.getByText(/deactivated/).first()).toBeVisible();
  } finally {
    await setServerClockAhead(0);
  }
});
