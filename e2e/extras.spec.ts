import fs from 'node:fs';
import sharp from 'sharp';
import { ADMIN, createStaffMember, expect, signIn, test, uniqueEmail } from './fixtures';

test('a staff member suggests an improvement and a System Administrator reads it on the admin page', async ({
  page,
  browser,
}) => {
  const staff = await createStaffMember(browser, 'Suggester');
  await signIn(page, staff.email, staff.password);
  await page.getByRole('button', { name: 'Make a Suggestion' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a Suggestion' });
  await dialog.getByRole('button', { name: 'Submit Suggestion' }).click();
  await expect(page.getByText('Missing Information').first()).toBeVisible();
  await expect(page.getByText('Please fill in all fields before submitting.').first()).toBeVisible();

  const title = `Rota reminders ${Date.now().toString(36)}`;
  await dialog.getByLabel('Title').fill(title);
  await expect(dialog.getByText(`${title.length}/255`)).toBeVisible();
  await dialog.getByLabel('Description').fill('Remind us the evening before a changed shift.');
  await expect(dialog.getByText('45/1000')).toBeVisible();
  await dialog.getByRole('combobox', { name: 'Category' }).click();
  await page.getByRole('option', { name: 'Communication' }).click();
  await dialog.getByRole('button', { name: 'Submit Suggestion' }).click();
  await expect(page.getByText('Your suggestion has been submitted successfully.').first()).toBeVisible();
  await expect(dialog).toBeHidden();

  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto('/admin');
  const list = admin.getByRole('region', { name: /Staff Suggestions/ });
  const item = list.getByRole('listitem').filter({ hasText: title });
  await expect(item).toBeVisible();
  await expect(item).toContainText('Remind us the evening before a changed shift.');
  await expect(item).toContainText('Communication');
  await expect(item).toContainText(staff.name);
  await adminContext.close();
});

test('a staff member uploads a profile picture and sees it in the header avatar', async ({ page, browser }) => {
  const staff = await createStaffMember(browser, 'Picture');
  await signIn(page, staff.email, staff.password);
  const text = `Morning all ${Date.now().toString(36)}`;
  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill(text);
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const postAvatar = page.getByRole('article').filter({ hasText: text }).locator('img.avatar-image');
  await expect(page.getByRole('article').filter({ hasText: text })).toBeVisible();
  await expect(postAvatar).toHaveCount(0);

  const picker = page.getByLabel('Change profile picture');
  const headerAvatar = page.getByRole('button', { name: 'Profile menu' }).locator('img');
  await expect(headerAvatar).toHaveCount(0);

  await picker.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
  await expect(page.getByText('Invalid file type').first()).toBeVisible();
  await expect(page.getByText('Please select an image file.').first()).toBeVisible();

  const huge = Buffer.alloc(6 * 1024 * 1024, 0xff);
  await picker.setInputFiles({ name: 'huge.jpg', mimeType: 'image/jpeg', buffer: huge });
  await expect(page.getByText('File too large').first()).toBeVisible();
  await expect(page.getByText('Please select an image smaller than 5MB.').first()).toBeVisible();

  const photo = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#2f855a' } })
    .jpeg()
    .toBuffer();
  await picker.setInputFiles({ name: 'me.jpg', mimeType: 'image/jpeg', buffer: photo });
  await expect(page.getByText('Profile picture updated successfully!').first()).toBeVisible();
  await expect(headerAvatar).toHaveAttribute('src', /^\/api\/uploads\/[\w-]+$/);
  const size = await headerAvatar.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
  expect(size).toEqual([200, 200]);

  // The post's avatar comes from the synced staff directory: the change reached it through sync.
  const src = await headerAvatar.getAttribute('src');
  await expect(postAvatar).toHaveAttribute('src', src!);

  await page.reload();
  await expect(headerAvatar).toHaveAttribute('src', src!);
  await expect(postAvatar).toHaveAttribute('src', src!);
});

test('the audit log shows sign-ins, filters by person, action and date, and downloads as CSV', async ({ page }) => {
  const visitor = uniqueEmail('intruder');
  await page.goto('/login');
  await page.getByLabel('Email').fill(visitor);
  await page.getByLabel('Password', { exact: true }).fill('Wrong!Guess1');
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Invalid email or password').first()).toBeVisible();

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin');
  const audit = page.getByRole('region', { name: 'Audit Log' });
  await audit.getByRole('button', { name: 'Show Audit Log' }).click();
  const rows = audit.locator('tbody tr');
  await expect(rows.filter({ hasText: 'Signed in' }).filter({ hasText: ADMIN.email }).first()).toBeVisible();

  await audit.getByLabel('Person').fill(visitor);
  await audit.getByRole('combobox', { name: 'Action' }).click();
  await page.getByRole('option', { name: 'Sign-in failed' }).click();
  await audit.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Sign-in failed');
  await expect(rows.first()).toContainText(visitor);

  const pad = (n: number) => String(n).padStart(2, '0');
  const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const today = new Date();
  await audit.getByLabel('From').fill(day(today));
  await audit.getByLabel('To').fill(day(today));
  await audit.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(rows).toHaveCount(1);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    audit.getByRole('link', { name: 'Download CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = fs.readFileSync(await download.path(), 'utf8');
  const lines = csv.trim().split('\r\n');
  expect(lines[0]).toContain('"Time (UTC)","Action"');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain('"Sign-in failed"');
  expect(lines[1]).toContain(visitor);

  const yesterday = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 1);
  await audit.getByLabel('From').fill(day(yesterday));
  await audit.getByLabel('To').fill(day(yesterday));
  await audit.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(audit.getByText('No audit entries match these filters.')).toBeVisible();

  await audit.getByRole('button', { name: 'Clear' }).click();
  await audit.getByRole('combobox', { name: 'Action' }).click();
  await page.getByRole('option', { name: 'Audit log exported' }).click();
  await audit.getByRole('button', { name: 'Apply Filters' }).click();
  await expect(rows.first()).toContainText('Audit log exported');
  await expect(rows.first()).toContainText(ADMIN.email);
});

test('a screen opened from the header starts at its top, not at the scroll of the feed', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page.getByRole('region', { name: 'Create a post' })).toBeVisible();
  // However long the feed is, the page is made long enough to scroll far down it.
  await page.evaluate(() => {
    document.body.style.minHeight = '8000px';
    window.scrollTo(0, 3000);
  });
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(2000);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin Dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'System Administration' })).toBeVisible();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);

  await page.evaluate(() => window.scrollTo(0, 3000));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(2000);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Residents OPP' }).click();
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
});

test('Escape closes the dialog the user is in first, even with a toast shown over it (decision 129)', async ({
  page,
}) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole('button', { name: 'Make a Suggestion' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make a Suggestion' });
  await dialog.getByRole('button', { name: 'Submit Suggestion' }).click();
  await expect(page.getByText('Missing Information')).toBeVisible();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  // The toast went with that press too; a dialog opened again is not left under it.
  await expect(page.getByText('Missing Information')).toBeHidden();
});
