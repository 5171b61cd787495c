import {
  ADMIN,
  createStaffMember,
  expect,
  expectPostSent,
  expectServerHolds,
  setStaffHouses,
  signIn,
  test,
  userIdOf,
  writeUrgentPost,
} from './fixtures';
import { serverRows } from './support/offline';

/** The user's acknowledgement of the alert for the post with this text, and the audit entries it made. */
function serverAcknowledgements(content: string, userId: string) {
  const acknowledged = serverRows(
    `SELECT a.acknowledged_at IS NOT NULL AS acknowledged, a.deleted FROM acknowledgements a
     JOIN posts p ON p.id = a.post_id WHERE p.content = ? AND a.user_id = ?`,
    [content, userId],
  );
  const audited = serverRows(
    `SELECT l.id FROM audit_log l JOIN posts p ON p.id = l.target_id
     WHERE l.action = 'alert.acknowledged' AND p.content = ? AND l.actor_id = ?`,
    [content, userId],
  ).length;
  return { acknowledged, audited };
}

test('an urgent post blocks a colleague’s screen until acknowledged, also offline', async ({
  browser,
  wifi,
  wifiContext: staffContext,
  wifiPage: colleague,
}) => {
  const staff = await createStaffMember(browser, 'Alerted');
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  // Two devices, signed in side by side.
  await Promise.all([signIn(admin, ADMIN.email, ADMIN.password), signIn(colleague, staff.email, staff.password)]);
  const word = Math.random().toString(36).slice(2, 8);

  await writeUrgentPost(admin, `Water leak at Giles House ${word}: keep residents away from the kitchen`);
  const modal = colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toBeVisible();
  const item = modal.getByRole('listitem').filter({ hasText: `Water leak at Giles House ${word}` });
  await expect(item).toContainText('Company Announcement');
  await expect(item).toContainText('System');
  await expect(item).toContainText(/just now|minute/);
  await expect(modal).toContainText('Please acknowledge all emergency messages before continuing');
  // Escape does not dismiss it.
  await colleague.keyboard.press('Escape');
  await expect(modal).toBeVisible();
  // The author is not alerted by their own post.
  await expect(admin.getByRole('alertdialog', { name: 'EMERGENCY ALERT' })).toHaveCount(0);

  await item.getByRole('button', { name: 'I have read this message' }).click();
  await expect(modal).toHaveCount(0);
  await colleague.reload();
  await expect(colleague.getByRole('region', { name: 'Create a post' })).toBeVisible();
  await colleague.waitForTimeout(1000);
  await expect(modal).toHaveCount(0);

  // The bell lists the alert; choosing it scrolls to the post and highlights it.
  await colleague.getByRole('button', { name: /^Notifications/ }).click();
  await colleague
    .getByRole('menuitem')
    .filter({ hasText: `Water leak at Giles House ${word}` })
    .click();
  const card = colleague.getByRole('article').filter({ hasText: `Water leak at Giles House ${word}` });
  await expect(card).toHaveClass(/post-card-highlight/);
  await expect(card).not.toHaveClass(/post-card-highlight/, { timeout: 5000 });

  // The administrator's report shows who acknowledged, by house, and offers the CSV.
  const adminCard = admin.getByRole('article').filter({ hasText: `Water leak at Giles House ${word}` });
  await adminCard.getByRole('button', { name: 'Acknowledgements' }).click();
  const report = admin.getByRole('dialog', { name: 'Acknowledgements' });
  const row = report.getByRole('row').filter({ hasText: staff.name });
  await expect(row).toContainText(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/);
  await expect(row).toContainText(/\d+ s|min/);
  await expect(report.getByRole('link', { name: 'Export CSV' })).toHaveAttribute('href', /\/report\.csv$/);
  await admin.keyboard.press('Escape');

  // A second alert acknowledged offline: saved, and sent on reconnecting.
  const powerCut = `Power cut at Tudor Way ${word}`;
  await writeUrgentPost(admin, powerCut);
  await expect(modal).toBeVisible();
  await wifi.off(staffContext);
  await modal.getByRole('button', { name: 'I have read this message' }).click();
  await expect(colleague.getByText('Saved — will send when back online').first()).toBeVisible();
  await expect(modal).toHaveCount(0);
  const staffId = userIdOf(staff.email);
  expect(serverAcknowledgements(powerCut, staffId)).toEqual({
    acknowledged: [{ acknowledged: 0, deleted: 0 }],
    audited: 0,
  });
  await wifi.on(staffContext);
  await expect
    .poll(async () => {
      const response = await colleague.request.get('/api/alerts/unacknowledged');
      return ((await response.json()) as { content: string }[]).filter((a) => a.content.includes(word)).length;
    })
    .toBe(0);
  // The server holds the acknowledgement once: acknowledged, and audited a single time.
  await expectServerHolds(() => serverAcknowledgements(powerCut, staffId), {
    acknowledged: [{ acknowledged: 1, deleted: 0 }],
    audited: 1,
  });

  await adminContext.close();
});

test('an urgent post addressed to a house alerts only the staff of that house', async ({ browser }) => {
  const staff = await createStaffMember(browser, 'Housed');
  const adminContext = await browser.newContext();
  const staffContext = await browser.newContext();
  const admin = await adminContext.newPage();
  const colleague = await staffContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await setStaffHouses(admin, staff.email, ['Giles House']);

  await signIn(colleague, staff.email, staff.password);
  const word = Math.random().toString(36).slice(2, 8);
  await writeUrgentPost(admin, `Tudor Way only ${word}`, ['Tudor Way']);
  await expect(colleague.getByRole('article').filter({ hasText: `Tudor Way only ${word}` })).toBeVisible();
  await expect(colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' })).toHaveCount(0);
  await writeUrgentPost(admin, `Giles House only ${word}`, ['Giles House']);
  const modal = colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toContainText(`Giles House only ${word}`);
  await expect(modal).not.toContainText(`Tudor Way only ${word}`);

  await adminContext.close();
  await staffContext.close();
});

test('editing an urgent post’s audience alerts the chosen house only; made ordinary, the alert is withdrawn', async ({
  browser,
}) => {
  const giles = await createStaffMember(browser, 'Giles');
  const lodges = await createStaffMember(browser, 'Lodges');
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await setStaffHouses(admin, giles.email, ['Giles House']);
  await setStaffHouses(admin, lodges.email, ['The Lodges']);

  const contexts = [await browser.newContext(), await browser.newContext()];
  const [inHouse, elsewhere] = await Promise.all(contexts.map((context) => context.newPage()));
  await Promise.all([signIn(inHouse, giles.email, giles.password), signIn(elsewhere, lodges.email, lodges.password)]);
  const unacknowledged = async (page: typeof admin, text: string) => {
    const response = await page.request.get('/api/alerts/unacknowledged');
    return ((await response.json()) as { content: string }[]).some((alert) => alert.content.includes(text));
  };

  // Addressed to a third house: neither colleague is alerted.
  const word = Math.random().toString(36).slice(2, 8);
  await writeUrgentPost(admin, `Fire alarm test ${word}`, ['Tudor Way']);
  for (const page of [inHouse, elsewhere]) {
    await expect(page.getByRole('article').filter({ hasText: `Fire alarm test ${word}` })).toBeVisible();
    await expect(page.getByRole('alertdialog', { name: 'EMERGENCY ALERT' })).toHaveCount(0);
  }

  // The author moves the alert to Giles House in the edit dialog, which shows the stored audience first.
  const card = admin.getByRole('article').filter({ hasText: `Fire alarm test ${word}` });
  await card.getByRole('button', { name: 'Edit post' }).click();
  let edit = admin.getByRole('dialog', { name: 'Edit Post' });
  const audience = edit.getByRole('group', { name: 'Alert audience' });
  await expect(audience.getByLabel('Chosen houses')).toBeChecked();
  const houses = edit.getByRole('group', { name: 'Alert houses' });
  await expect(houses.getByLabel('Tudor Way')).toBeChecked();
  await houses.getByText('Tudor Way').click();
  await houses.getByText('Giles House').click();
  await edit.getByLabel('Content').fill(`Fire alarm test ${word}: Giles House, 2pm`);
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(admin.getByText('Post updated').first()).toBeVisible();

  const modal = inHouse.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toContainText(`Fire alarm test ${word}: Giles House, 2pm`);
  await expect(elsewhere.getByRole('article').filter({ hasText: 'Giles House, 2pm' })).toBeVisible();
  await expect.poll(() => unacknowledged(inHouse, `Fire alarm test ${word}`)).toBe(true);
  expect(await unacknowledged(elsewhere, `Fire alarm test ${word}`)).toBe(false);
  await expect(elsewhere.getByRole('alertdialog', { name: 'EMERGENCY ALERT' })).toHaveCount(0);

  // Made ordinary: the audience control goes, the stored audience is cleared and the modal is withdrawn.
  await card.getByRole('button', { name: 'Edit post' }).click();
  edit = admin.getByRole('dialog', { name: 'Edit Post' });
  await expect(edit.getByRole('group', { name: 'Alert houses' }).getByLabel('Giles House')).toBeChecked();
  await edit.getByLabel('Mark as urgent').click();
  await expect(edit.getByRole('group', { name: 'Alert audience' })).toHaveCount(0);
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(modal).toHaveCount(0);
  await expect
    .poll(async () => {
      const response = await admin.request.get('/api/posts?limit=100');
      const posts = (await response.json()) as { content: string; isUrgent: boolean; audienceHouses: string[] }[];
      const post = posts.find((p) => p.content.includes(`Fire alarm test ${word}`));
      return post && { isUrgent: post.isUrgent, audienceHouses: post.audienceHouses };
    })
    .toEqual({ isUrgent: false, audienceHouses: [] });

  await adminContext.close();
  for (const context of contexts) await context.close();
});

test('on a first sign-in with an alert waiting, the push prompt waits until it is acknowledged; the first tap acknowledges', async ({
  browser,
}) => {
  const staff = await createStaffMember(browser, 'Prompted');
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  const text = `Boiler failure at The Lodges ${Math.random().toString(36).slice(2, 8)}`;
  await writeUrgentPost(admin, text);
  // Closed only once the alert has left the admin's device: a page closed sooner takes it with it.
  await expectPostSent(admin, text);
  await adminContext.close();

  const context = await browser.newContext();
  const page = await context.newPage();
  // A slow first sync: the alert reaches the device after the prompt's 2 s, as on a loaded phone (decision 163).
  await page.route('**/api/sync/acknowledgements/pull*', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await route.continue();
  });
  await signIn(page, staff.email, staff.password, { pushPrompt: true });
  const modal = page.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  const prompt = page.getByRole('dialog', { name: 'Enable Push Notifications' });
  await expect(modal).toContainText(text);
  // Well past the prompt's 2 s: it waits while the alert is open, and is not yet counted as seen.
  await page.waitForTimeout(3000);
  await expect(prompt).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('hasSeenPushPrompt'))).toBeNull();
  // No other dialog hides the alert's button from assistive technology or takes its tap.
  const acknowledge = modal.getByRole('button', { name: 'I have read this message' });
  await expect(acknowledge).toBeFocused();
  await acknowledge.click();
  await expect(modal).toHaveCount(0);
  // Then the prompt shows, and only now counts as seen.
  await expect(prompt).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('hasSeenPushPrompt'))).toBe('true');
  await prompt.getByRole('button', { name: 'Not Now' }).click();
  await expect(prompt).toHaveCount(0);
  await context.close();
});
