import { ADMIN, createStaffMember, expect, expectServerHolds, signIn, signInSynced, test } from './fixtures';
import { serverRows } from './support/offline';
import { setServerClockAhead } from './support/server-clock';

/** The composer's Schedule field value (the browser's local time, to the minute) for a time. */
function scheduleValue(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** How many published and how many scheduled posts with this text the server holds. */
const serverCounts = (content: string) => ({
  published: serverRows('SELECT count(*) AS n FROM posts WHERE content = ?', [content])[0].n,
  scheduled: serverRows('SELECT count(*) AS n FROM scheduled_posts WHERE content = ?', [content])[0].n,
});

test('a scheduled post reaches a colleague only at its time; one written offline with a past time publishes once; edits and cancels made offline go once', async ({
  browser,
  wifi,
  wifiContext: adminContext,
  wifiPage: admin,
}) => {
  const staff = await createStaffMember(browser, 'Scheduled');
  const readerContext = await browser.newContext();
  const reader = await readerContext.newPage();
  await signIn(reader, staff.email, staff.password);
  await signInSynced(admin, ADMIN);
  const word = Math.random().toString(36).slice(2, 8);

  // The admin schedules a post for the next minute at least 20 s away.
  const drill = `Fire drill on Friday at 10 ${word}`;
  const at = new Date(Math.ceil((Date.now() + 20_000) / 60_000) * 60_000);
  const composer = admin.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(drill);
  await composer.getByLabel('Schedule (optional)').fill(scheduleValue(at));
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
  const scheduled = admin.getByRole('region', { name: 'Scheduled', exact: true });
  await expect(scheduled).toContainText(drill);
  await expect(scheduled).toContainText('Scheduled for');
  await expect(admin.getByRole('article').filter({ hasText: drill })).toHaveCount(0);
  await expectServerHolds(() => serverCounts(drill), { published: 0, scheduled: 1 });

  // The colleague does not see it before its time, and sees it after, once. Rather than wait up to 80 s for the
  // minute, the server's clock moves to it (e2e/serve.ts); this worker's journeys run one at a time (decision 160).
  await expect(reader.getByRole('article').filter({ hasText: drill })).toHaveCount(0);
  expect(Date.now()).toBeLessThan(at.getTime());
  await expectServerHolds(() => serverCounts(drill), { published: 0, scheduled: 1 });
  await setServerClockAhead(at.getTime() - Date.now() + 1_000);
  try {
    await expect(reader.getByRole('article').filter({ hasText: drill })).toBeVisible({ timeout: 20_000 });
    const createdAt = serverRows('SELECT created_at AS at FROM posts WHERE content = ?', [drill])[0]?.at as number;
    expect(createdAt, 'published at its time, by the server clock').toBeGreaterThanOrEqual(at.getTime());
    await expect(admin.getByRole('article').filter({ hasText: drill })).toBeVisible();
    await expect(admin.getByRole('region', { name: 'Scheduled', exact: true })).toHaveCount(0);
    await expectServerHolds(() => serverCounts(drill), { published: 1, scheduled: 0 });
  } finally {
    await setServerClockAhead(0);
  }

  // Written offline with a time already past, it publishes as soon as it is sent, exactly once.
  const late = `Handover moved to the lounge ${word}`;
  await wifi.off(adminContext);
  await composer.getByLabel('Post content').fill(late);
  await composer.getByLabel('Schedule (optional)').fill(scheduleValue(new Date(Date.now() - 120_000)));
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expect(composer.getByLabel('Post content')).toHaveValue('');
  await expect(admin.getByRole('region', { name: 'Scheduled', exact: true })).toContainText(late);
  expect(serverCounts(late)).toEqual({ published: 0, scheduled: 0 });
  await wifi.on(adminContext);
  await expect(reader.getByRole('article').filter({ hasText: late })).toBeVisible({ timeout: 30_000 });
  await expect(admin.getByRole('article').filter({ hasText: late })).toBeVisible();
  await expectServerHolds(() => serverCounts(late), { published: 1, scheduled: 0 });

  // Edited and then cancelled offline: each change reaches the server once the Wi-Fi is back (decision 142).
  const meeting = `Staff meeting at 2 ${word}`;
  const moved = `Staff meeting at 3 ${word}`;
  await composer.getByLabel('Post content').fill(meeting);
  await composer.getByLabel('Schedule (optional)').fill(scheduleValue(new Date(Date.now() + 3 * 3_600_000)));
  await composer.getByRole('button', { name: 'Schedule', exact: true }).click();
  await expectServerHolds(() => serverCounts(meeting), { published: 0, scheduled: 1 });
  const card = admin.locator('.scheduled-card').filter({ hasText: meeting });
  await wifi.off(adminContext);
  await card.getByRole('button', { name: 'Edit' }).click();
  // The one card being edited: its words are now the form's, which the filter above no longer finds.
  const editing = admin.locator('.scheduled-edit');
  await editing.getByLabel('Post content').fill(moved);
  await editing.getByRole('button', { name: 'Save' }).click();
  const movedCard = admin.locator('.scheduled-card').filter({ hasText: moved });
  await expect(movedCard).toBeVisible();
  expect(serverCounts(moved)).toEqual({ published: 0, scheduled: 0 });
  await wifi.on(adminContext);
  await expectServerHolds(() => serverCounts(moved), { published: 0, scheduled: 1 });
  await wifi.off(adminContext);
  admin.once('dialog', (dialog) => void dialog.accept());
  await movedCard.getByRole('button', { name: 'Cancel' }).click();
  await expect(movedCard).toHaveCount(0);
  await wifi.on(adminContext);
  await expectServerHolds(() => serverCounts(moved), { published: 0, scheduled: 0 });
  await readerContext.close();
});
