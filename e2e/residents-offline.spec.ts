import type { BrowserContext, Page } from '@playwright/test';
import sharp from 'sharp';
import { ADMIN, createStaffMember, expect, signIn, STAFF_PASSWORD, test } from './fixtures';
import { readableOnDevice, reloadOffline, serverRows, waitForServiceWorker } from './support/offline';

/**
 * Residents' profiles edited offline (decision 120), a new photo included (decision 123): saved on the device, sent once
 * when back online, merged field by field with a colleague's edit made meanwhile (the later writer is told which fields were theirs), and sealed with
 * the rest of the unsent work when the session ends before they are sent (decision 114).
 */

const tag = () => Math.random().toString(36).slice(2, 6);

const PORTRAIT_NAME = 'portrait-offline.jpg';

/** A phone photo of a resident, to choose in the edit form. */
async function portrait(): Promise<{ name: string; mimeType: string; buffer: Buffer }> {
  const buffer = await sharp({ create: { width: 48, height: 64, channels: 3, background: '#7a5230' } })
    .jpeg()
    .toBuffer();
  return { name: PORTRAIT_NAME, mimeType: 'image/jpeg', buffer };
}

// Each journey creates a staff member through /admin and an invitation, and the second signs in on two devices.
test.describe.configure({ timeout: 180_000 });

/** The server's copy of a resident, by name. */
const residentNamed = (name: string) =>
  serverRows(
    `SELECT id, medication, interests_happy_place AS interests, communication_preferences AS communication,
     photo_url AS photo FROM residents WHERE name = ? AND archived = 0`,
    [name],
  );

/** The server's versions of a resident, oldest first, with who made each. */
const versionsOf = (name: string) =>
  serverRows(
    `SELECT v.version, v.action, u.email FROM resident_versions v JOIN residents r ON r.id = v.resident_id
     LEFT JOIN users u ON u.id = v.changed_by WHERE r.name = ? ORDER BY v.version`,
    [name],
  ) as { version: number; action: string; email: string }[];

const auditOf = (name: string, action: string) =>
  serverRows(
    `SELECT u.email FROM audit_log a JOIN residents r ON r.id = a.target_id JOIN users u ON u.id = a.actor_id
     WHERE a.target_type = 'resident' AND r.name = ? AND a.action = ? ORDER BY a.id`,
    [name, action],
  ).map((row) => row.email);

/** Adds a resident over REST as the signed-in page's user, and waits until this device's Residents page shows it. */
async function addResident(page: Page, name: string, fields: Record<string, string>): Promise<void> {
  const answer = await page.request.post('/api/residents', { data: { name, ...fields } });
  expect(answer.status()).toBe(201);
  await page.goto('/residents');
  await expect(residentCard(page, name)).toBeVisible();
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready');
}

const residentCard = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

/** Opens the edit dialog of a resident's card. */
async function openEdit(page: Page, name: string) {
  await residentCard(page, name)
    .getByRole('button', { name: `Edit ${name}` })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Edit Resident' });
  await expect(dialog.getByLabel('Full Name')).toHaveValue(name);
  return dialog;
}

/** Goes offline and waits until the app says so. */
async function goOffline(page: Page, context: BrowserContext, wifi: { off: (c: BrowserContext) => Promise<void> }) {
  // Ready to work offline first, as the app is after its first visit: a reload offline needs the service worker.
  await waitForServiceWorker(page);
  await wifi.off(context);
  await expect(page.getByText('Working Offline')).toBeVisible();
}

/** The server holds exactly `count` update versions, and still does a moment later (no second push). */
async function expectUpdatesOnce(name: string, count: number): Promise<void> {
  const updates = () => versionsOf(name).filter((v) => v.action === 'update').length;
  await expect.poll(updates, { timeout: 20_000 }).toBe(count);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(updates()).toBe(count);
}

test('a profile edited offline with a new photo is kept on the device and each change reaches the server once', async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
  browser,
}) => {
  const name = `Edith Offline ${tag()}`;
  const member = await createStaffMember(browser, 'Rosa');
  await signIn(page, member.email, STAFF_PASSWORD);
  await addResident(page, name, { medication: 'Tea at four' });

  await goOffline(page, context, wifi);
  const edit = await openEdit(page, name);
  await expect(
    edit.getByText('A new photo is kept on this device with your other changes and sent when you are back online.'),
  ).toBeVisible();
  await edit.getByLabel('Photo').setInputFiles(await portrait());
  await edit.getByLabel('Medication').fill('Tea at four, no sugar');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Saved on this device — it will be sent when you are back online').first()).toBeVisible();
  await expect(edit).toBeHidden();
  await expect(page.getByText('2 pending')).toBeVisible();
  await expect(residentCard(page, name).getByText('New photo waiting to be sent')).toBeVisible();
  // The device shows its own edit; the server has not heard of it.
  await residentCard(page, name)
    .getByRole('button', { name: `View ${name}` })
    .click();
  const profile = page.getByRole('dialog', { name });
  await expect(profile.getByRole('region', { name: 'Medication' })).toHaveText(/Tea at four, no sugar/);
  await profile.getByRole('button', { name: 'Close' }).click();
  expect(residentNamed(name)).toMatchObject([{ medication: 'Tea at four', photo: null }]);

  // The page is opened again while still offline: the photo still waits.
  await reloadOffline(page);
  await expect(residentCard(page, name).getByText('New photo waiting to be sent')).toBeVisible();

  await wifi.on(context);
  await expectUpdatesOnce(name, 2);
  expect(residentNamed(name)).toMatchObject([
    { medication: 'Tea at four, no sugar', photo: expect.stringMatching(/\.jpg$/) },
  ]);
  expect(versionsOf(name).map((v) => [v.version, v.action, v.email])).toEqual([
    [1, 'create', member.email],
    [2, 'update', member.email],
    [3, 'update', member.email],
  ]);
  expect(auditOf(name, 'resident.update')).toEqual([member.email, member.email]);
  await expect(page.getByText('2 pending')).toBeHidden();
  await expect(residentCard(page, name).getByText('New photo waiting to be sent')).toBeHidden();
  await expect(residentCard(page, name).locator('img')).toBeVisible();
});

test('two devices edit one profile, one offline: both edits are kept field by field and the later writer is told', async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
  browser,
}) => {
  const name = `Harold Both ${tag()}`;
  const member = await createStaffMember(browser, 'Owen');
  await signIn(page, member.email, STAFF_PASSWORD);
  await addResident(page, name, {
    interestsHappyPlace: 'Brass bands',
    medication: 'Morning tablets',
    communicationPreferences: 'Speak on his left side',
  });

  // This device goes offline and changes Communication and Medication.
  await goOffline(page, context, wifi);
  const edit = await openEdit(page, name);
  await edit.getByLabel('Communication Preferences').fill('Speak on his left side, slowly');
  await edit.getByLabel('Medication').fill('Morning tablets with water');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Saved on this device — it will be sent when you are back online').first()).toBeVisible();

  // Meanwhile an administrator, online on another device, changes Interests and Medication.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto('/residents');
  const adminEdit = await openEdit(admin, name);
  await adminEdit.getByLabel('Interests & Happy Place').fill('Brass bands and cricket');
  await adminEdit.getByLabel('Medication').fill('Morning tablets after breakfast');
  await adminEdit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(admin.getByText('Resident updated successfully').first()).toBeVisible();
  await expect.poll(() => residentNamed(name)[0]?.interests, { timeout: 20_000 }).toBe('Brass bands and cricket');
  await adminContext.close();

  // Back online: the later writer's fields are applied onto the administrator's version, and they are told.
  await wifi.on(context);
  await expectUpdatesOnce(name, 2);
  expect(residentNamed(name)).toMatchObject([
    {
      interests: 'Brass bands and cricket',
      communication: 'Speak on his left side, slowly',
      medication: 'Morning tablets with water',
    },
  ]);
  expect(versionsOf(name).map((v) => [v.action, v.email])).toEqual([
    ['create', member.email],
    ['update', ADMIN.email],
    ['update', member.email],
  ]);
  const notice = page.getByRole('status').filter({ hasText: 'Someone else changed' });
  await expect(notice).toContainText(
    `Someone else changed Interests & Happy Place and Medication of ${name} while you were offline; your changes ` +
      'to Medication and Communication Preferences were applied. You both changed Medication: your version was ' +
      "kept, and theirs is in the profile's history.",
  );
  // The device shows the merged profile, and the history both versions with their authors.
  await residentCard(page, name)
    .getByRole('button', { name: `View ${name}` })
    .click();
  const profile = page.getByRole('dialog', { name });
  await expect(profile.getByRole('region', { name: 'Interests & Happy Place' })).toHaveText(/and cricket/);
  await expect(
    profile.getByText('Medication: Morning tablets after breakfast → Morning tablets with water'),
  ).toBeVisible();
  await expect(profile.getByText('Medication: Morning tablets → Morning tablets after breakfast')).toBeVisible();
  await profile.getByRole('button', { name: 'Close' }).click();
  await notice.getByRole('button', { name: 'Dismiss' }).click();
  await expect(notice).toHaveCount(0);
});

test('an offline edit and profile opening, then signing out anyway: sealed, and sent once at the next sign-in', async ({
  wifiPage: page,
  wifiContext: context,
  wifi,
  browser,
}) => {
  const name = `Iris Sealed ${tag()}`;
  const secret = `Insulin at 8 ${tag()}`;
  const member = await createStaffMember(browser, 'Nadia');
  await signIn(page, member.email, STAFF_PASSWORD);
  await addResident(page, name, { medication: 'None' });
  const viewsBefore = auditOf(name, 'resident.view').length;

  await goOffline(page, context, wifi);
  await residentCard(page, name)
    .getByRole('button', { name: `View ${name}` })
    .click();
  await page.getByRole('dialog', { name }).getByRole('button', { name: 'Close' }).click();
  const edit = await openEdit(page, name);
  await edit.getByLabel('Medication').fill(secret);
  await edit.getByLabel('Photo').setInputFiles(await portrait());
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('2 pending')).toBeVisible();

  // Signing out anyway: asked first (the opening is bookkeeping, not an item), then nothing stays readable.
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  const ask = page.getByRole('alertdialog', { name: 'Sign out with unsent items?' });
  await expect(ask).toContainText('You have 2 unsent items that have not reached the server yet.');
  await ask
    .getByRole('button', { name: 'Sign out anyway — they will be sent next time you sign in on this device' })
    .click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
  const left = await readableOnDevice(page);
  expect(left.stores).toEqual([]);
  expect(left.kept).not.toBe('');
  expect(left.kept).not.toContain(secret);
  expect(left.kept).not.toContain(name);
  expect(left.kept).not.toContain(PORTRAIT_NAME);
  expect(residentNamed(name)).toMatchObject([{ medication: 'None', photo: null }]);

  // Back online, the same person signs in: the edit, the photo and the opening go first, once each.
  await wifi.on(context);
  await page.goto('/login');
  await expect(
    page.getByText('2 unsent items are waiting on this device and will be sent after signing in.'),
  ).toBeVisible();
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel('Password', { exact: true }).fill(STAFF_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expectUpdatesOnce(name, 2);
  expect(residentNamed(name)).toMatchObject([{ medication: secret, photo: expect.stringMatching(/\.jpg$/) }]);
  await expect.poll(() => auditOf(name, 'resident.view').length, { timeout: 20_000 }).toBe(viewsBefore + 1);
  expect(auditOf(name, 'resident.view').at(-1)).toBe(member.email);
  await expect(page.getByText('Unsent items delivered').first()).toBeVisible({ timeout: 20_000 });
});
