import { createStaffMember, expect, signIn, test } from './fixtures';

test('on a phone: the menu offers the suggestion dialog and the profile-picture uploader', async ({
  page,
  browser,
}) => {
  const staff = await createStaffMember(browser, 'Phone');
  await signIn(page, staff.email, staff.password);
  await page.getByRole('button', { name: 'Open menu' }).click();
  const menu = page.getByRole('dialog', { name: 'Menu' });
  await expect(menu.getByRole('button', { name: 'Change Picture' })).toBeVisible();
  await menu.getByLabel('Change profile picture').setInputFiles({
    name: 'notes.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('not a picture'),
  });
  await expect(page.getByText('Invalid file type').first()).toBeVisible();

  await menu.getByRole('button', { name: 'Make a Suggestion' }).click();
  await expect(menu).toBeHidden();
  const dialog = page.getByRole('dialog', { name: 'Make a Suggestion' });
  await dialog.getByLabel('Title').fill('Bigger buttons');
  await dialog.getByLabel('Description').fill('Easier to tap with gloves on.');
  await dialog.getByRole('combobox', { name: 'Category' }).click();
  await page.getByRole('option', { name: 'User Interface' }).click();
  await dialog.getByRole('button', { name: 'Submit Suggestion' }).click();
  await expect(page.getByText('Your suggestion has been submitted successfully.').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/phone-suggestion.png' });
});
