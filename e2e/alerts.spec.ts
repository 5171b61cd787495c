import { ADMIN, createStaffMember, expect, signIn, test, writeUrgentPost } from './fixtures';

test('an urgent post blocks a colleague’s screen until acknowledged, also offline', async ({ browser }) => {
  const staff = await createStaffMember(browser, 'Alerted');
  const adminContext = await browser.newContext();
  const staffContext = await browser.newContext();
  const admin = await adminContext.newPage();
  const colleague = await staffContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await signIn(colleague, staff.email, staff.password);
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
  await writeUrgentPost(admin, `Power cut at Tudor Way ${word}`);
  await expect(modal).toBeVisible();
  await staffContext.setOffline(true);
  await modal.getByRole('button', { name: 'I have read this message' }).click();
  await expect(colleague.getByText('Saved — will send when back online').first()).toBeVisible();
  await expect(modal).toHaveCount(0);
  await staffContext.setOffline(false);
  await expect
    .poll(async () => {
      const response = await colleague.request.get('/api/alerts/unacknowledged');
      return ((await response.json()) as { content: string }[]).filter((a) => a.content.includes(word)).length;
    })
    .toBe(0);

  await adminContext.close();
  await staffContext.close();
});

test('an urgent post addressed to a house alerts only the staff of that house', async ({ browser }) => {
  const staff = await createStaffMember(browser, 'Housed');
  const adminContext = await browser.newContext();
  const staffContext = await browser.newContext();
  const admin = await adminContext.newPage();
  const colleague = await staffContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto('/admin');
  const row = admin.getByTestId(`user-${staff.email}`);
  await row.getByRole('button', { name: 'Houses' }).click();
  const dialog = admin.getByRole('dialog', { name: 'Houses' });
  await dialog.getByText('Giles House').click();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(row).toContainText('Houses: Giles House');
  await admin.goto('/');

  await signIn(colleague, staff.email, staff.password);
  const word = Math.random().toString(36).slice(2, 8);
  const composer = admin.getByRole('region', { name: 'Create a post' });
  const post = async (content: string, house: string) => {
    await composer.getByLabel('Post content').fill(content);
    await composer.getByLabel('Mark as urgent').click();
    await composer.getByText('Chosen houses').click();
    await composer.getByRole('group', { name: 'Alert houses' }).getByText(house).click();
    await composer.getByRole('button', { name: 'Post', exact: true }).click();
    await expect(composer.getByLabel('Post content')).toHaveValue('');
  };
  await post(`Tudor Way only ${word}`, 'Tudor Way');
  await expect(colleague.getByRole('article').filter({ hasText: `Tudor Way only ${word}` })).toBeVisible();
  await expect(colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' })).toHaveCount(0);
  await post(`Giles House only ${word}`, 'Giles House');
  const modal = colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toContainText(`Giles House only ${word}`);
  await expect(modal).not.toContainText(`Tudor Way only ${word}`);

  await adminContext.close();
  await staffContext.close();
});
