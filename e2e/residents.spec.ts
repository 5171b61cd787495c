import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import {
  ADMIN,
  createStaffMember,
  expect,
  expectServerHolds,
  signIn,
  STAFF_PASSWORD,
  test,
  userIdOf,
} from './fixtures';
import { reloadOffline, serverRows, waitForServiceWorker } from './support/offline';

const FILES_DIR = path.resolve('test-results', 'resident-files');

/** A phone photo with camera metadata, as staff would pick it. */
async function makePhoto(): Promise<string> {
  fs.mkdirSync(FILES_DIR, { recursive: true });
  const file = path.join(FILES_DIR, 'resident.jpg');
  await sharp({ create: { width: 64, height: 64, channels: 3, background: '#4C307D' } })
    .withExif({ IFD0: { Make: 'PhoneCo', Model: 'Snapper 9' } })
    .jpeg()
    .toFile(file);
  return file;
}

/** The audit entries about one resident, read from the e2e server's own database. */
const auditActions = (residentName: string): unknown[] =>
  serverRows(
    `SELECT a.action FROM audit_log a JOIN residents r ON r.id = a.target_id
     WHERE a.target_type = 'resident' AND r.name = ? ORDER BY a.id`,
    [residentName],
  ).map((row) => row.action);

const residentCard = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

test('residents: add with a photo, edit, read offline, see the history, archive as admin, and leave nothing on sign-out', async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
  browser,
}) => {
  const name = `Margaret Hale ${Math.random().toString(36).slice(2, 6)}`;
  const member = await createStaffMember(browser, 'Rita');
  await signIn(page, member.email, STAFF_PASSWORD);
  await waitForServiceWorker(page);

  await page.getByRole('link', { name: 'Resident Profiles (OPP)' }).click();
  await expect(page).toHaveURL(/\/residents$/);
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  await expect(page.getByText('One Page Profiles for our residents')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to Home' })).toBeVisible();

  // Add: Full Name is required; the photo must be an image.
  await page.getByRole('button', { name: 'Add Resident' }).click();
  const form = page.getByRole('dialog', { name: 'Add New Resident' });
  await form.getByRole('button', { name: 'Add Resident' }).click();
  await expect(form.getByText('Full Name is required')).toBeVisible();
  await form.getByLabel('Full Name').fill(name);
  await form.getByLabel('Like to be called').fill('Maggie');
  await form.getByLabel('Date of Birth').fill('1941-03-09');
  await expect(form.getByLabel('Date of Birth')).toHaveAttribute('type', 'date');
  await form.getByLabel('Photo').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await expect(form.getByText('Please select an image file.')).toBeVisible();
  await form.getByLabel('Photo').setInputFiles(await makePhoto());
  await expect(form.getByText('Please select an image file.')).toBeHidden();
  await form.getByRole('group', { name: 'Houses' }).getByText('Giles House').click();
  await form.getByLabel('Medication').fill('Paracetamol 500mg at breakfast');
  await form.getByLabel('Interests & Happy Place').fill('The garden in spring');
  await form.getByRole('button', { name: 'Add Resident' }).click();
  await expect(page.getByText('Resident created successfully').first()).toBeVisible();
  await expect(form).toBeHidden();

  const card = residentCard(page, name);
  await expect(card).toBeVisible();
  await expect(card.getByText('Giles House')).toBeVisible();
  // The photo loads (with the session) from the residents' photo address.
  await expect(card.locator('.resident-photo img')).toHaveAttribute(
    'src',
    /^\/api\/residents\/photos\/[0-9a-f]{32}\.jpg$/,
  );

  // The house filter and its count.
  await page.getByLabel('House').click();
  await page.getByRole('option', { name: 'Apps House' }).click();
  await expect(card).toBeHidden();
  await page.getByLabel('House').click();
  await page.getByRole('option', { name: 'Giles House' }).click();
  await expect(card).toBeVisible();
  await expect(page.getByLabel(/^\d+ residents? shown$/)).toBeVisible();

  // Edit.
  await card.getByRole('button', { name: `Edit ${name}` }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Resident' });
  await expect(edit.getByLabel('Full Name')).toHaveValue(name);
  await edit.getByLabel('Medication').fill('Paracetamol 1g at breakfast');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Resident updated successfully').first()).toBeVisible();

  // The edit reaches this device through sync (the full profile shows it).
  await card.getByRole('button', { name: `View ${name}` }).click();
  const profile = page.getByRole('dialog', { name });
  await expect(profile.getByRole('region', { name: 'Medication' })).toHaveText(/Paracetamol 1g at breakfast/);
  await profile.getByRole('button', { name: 'Close' }).click();

  // Read offline: the profile comes from the device; the history waits for the connection.
  await wifi.off(context);
  await reloadOffline(page);
  await card.getByRole('button', { name: `View ${name}` }).click();
  await expect(profile.getByRole('region', { name: 'Medication' })).toHaveText(/Paracetamol 1g at breakfast/);
  await expect(profile.getByText('The history can be seen when you are back online.')).toBeVisible();
  await expect(profile.getByText(`Created by ${member.name} on`)).toBeVisible();
  await expect(profile.getByRole('button', { name: 'Archive' })).toHaveCount(0);
  await wifi.on(context);

  // Back online: the history shows who changed what, and both openings (one offline) reached the server.
  await expect(
    profile.getByText('Medication: Paracetamol 500mg at breakfast → Paracetamol 1g at breakfast'),
  ).toBeVisible({
    timeout: 15_000,
  });
  await expect(profile.getByText('created the profile on')).toBeVisible();
  await expect(profile.getByText('edited the profile on')).toBeVisible();
  // Each opening is held once as a recorded view; the two came within five minutes, so they are one audit entry
  // (decision 130).
  const views = () =>
    serverRows(
      'SELECT v.id FROM resident_views v JOIN residents r ON r.id = v.resident_id WHERE r.name = ? AND v.user_id = ?',
      [name, userIdOf(member.email)],
    ).length;
  await expectServerHolds(() => ({ actions: auditActions(name), views: views() }), {
    actions: ['resident.create', 'resident.update', 'resident.view'],
    views: 2,
  });
  await profile.getByRole('button', { name: 'Close' }).click();

  // An administrator archives it, after the confirmation headed by the product name.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.getByRole('link', { name: 'Residents OPP' }).click();
  await residentCard(admin, name)
    .getByRole('button', { name: `View ${name}` })
    .click();
  await admin.getByRole('dialog', { name }).getByRole('button', { name: 'Archive' }).click();
  const confirm = admin.getByRole('alertdialog', { name: 'Staff Portal' });
  await expect(
    confirm.getByText(`Are you sure you want to archive ${name}? This will remove them from the active resident list.`),
  ).toBeVisible();
  await confirm.getByRole('button', { name: 'Archive' }).click();
  await expect(admin.getByText('Resident archived successfully').first()).toBeVisible();
  await expect(residentCard(admin, name)).toBeHidden();

  // The admin's audit screen shows the resident's changes and openings, newest first, with who did them.
  await admin.goto('/admin');
  const audit = admin.getByRole('region', { name: 'Audit Log' });
  await audit.getByRole('button', { name: 'Show Audit Log' }).click();
  for (const [label, actor] of [
    ['Resident added', member.email],
    ['Resident edited', member.email],
    // The newest opening is the administrator's, who opened the profile to archive it.
    ['Resident profile viewed', ADMIN.email],
    ['Resident archived', ADMIN.email],
  ]) {
    await audit.getByRole('combobox', { name: 'Action' }).click();
    await admin.getByRole('option', { name: label, exact: true }).click();
    await audit.getByRole('button', { name: 'Apply Filters' }).click();
    const newest = audit.locator('tbody tr').first();
    await expect(newest).toContainText(label);
    await expect(newest).toContainText(actor);
  }
  await adminContext.close();

  // Every device drops it.
  await expect(card).toBeHidden({ timeout: 15_000 });
  expect(auditActions(name)).toContain('resident.archive');

  // Sign out: no local database and no cached photo remain, and the photo needs a session.
  const photoUrl = await page.evaluate(async () => {
    const cache = await caches.open('sp-uploads');
    return (await cache.keys()).map((request) => new URL(request.url).pathname).find((p) => p.includes('/residents/'));
  });
  expect(photoUrl, 'the photo was cached for offline reading').toBeTruthy();
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
  const left = await page.evaluate(async () => ({
    databases: (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.includes('sp_')),
    caches: await caches.keys(),
  }));
  expect(left.databases).toEqual([]);
  expect(left.caches).not.toContain('sp-uploads');
  const status = await page.evaluate(async (url) => (await fetch(url!, { cache: 'no-store' })).status, photoUrl);
  expect(status).toBe(401);
});
