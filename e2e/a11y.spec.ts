import { expectAllControlsReachable, expectFocusTrapped, expectNoSeriousViolations } from './a11y';
import { acknowledgePendingAlerts, ADMIN, createStaffMember, expect, signIn, test, writeUrgentPost } from './fixtures';

/** Desktop: every screen and dialog passes axe (no serious or critical finding) and works from the keyboard. */

test('signed-out screens: landing, sign-in, registration, forgot password, reset, not found', async ({ page }) => {
  for (const [path, heading] of [
    ['/', /Welcome/],
    ['/login', /Staff Login/],
    ['/register', /Create New Account/],
    ['/forgot-password', /Forgot your password/],
    ['/reset-password?token=not-a-real-token', /./],
    ['/no-such-page', /Page Not Found/],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: heading }).first()).toBeVisible();
    await expectNoSeriousViolations(page, path);
    await expectAllControlsReachable(page, path);
  }
});

test('the home feed and its dialogs: search, chat, bell, edit and delete, suggestion, push prompt', async ({
  page,
}) => {
  await acknowledgePendingAlerts(page, ADMIN.email, ADMIN.password);
  await signIn(page, ADMIN.email, ADMIN.password, { pushPrompt: true });
  const prompt = page.getByRole('dialog', { name: 'Enable Push Notifications' });
  await expect(prompt).toBeVisible({ timeout: 10_000 });
  await expectNoSeriousViolations(page, 'push prompt');
  await expectFocusTrapped(page, prompt, 'the push prompt');
  await prompt
    .getByRole('button', { name: /Not now|Later|Maybe later|Close/ })
    .first()
    .click();
  await expect(prompt).toHaveCount(0);

  const composer = page.getByRole('region', { name: 'Create a post' });
  await composer.getByLabel('Post content').fill('Accessibility check: the garden is open');
  await composer.getByRole('button', { name: 'Post', exact: true }).click();
  const card = page.getByRole('article').filter({ hasText: 'Accessibility check: the garden is open' }).first();
  await expect(card).toBeVisible();
  await expectNoSeriousViolations(page, 'home feed');
  await expectAllControlsReachable(page, 'home feed', page.getByRole('main'));

  const search = page.getByRole('banner').getByRole('button', { name: 'Search' });
  await search.click();
  const palette = page.getByRole('dialog').filter({ has: page.getByLabel('Search posts, users, or content') });
  await expect(palette).toBeVisible();
  await expectNoSeriousViolations(page, 'search palette');
  await expectFocusTrapped(page, palette, 'the search palette', search);

  const chat = page.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ });
  await chat.click();
  const panel = page.getByRole('dialog', { name: /Messages/ });
  await expect(panel).toBeVisible();
  await expectNoSeriousViolations(page, 'chat panel');
  await expectFocusTrapped(page, panel, 'the chat panel', chat);

  const bell = page.getByRole('button', { name: /^Notifications/ });
  await bell.click();
  await expect(page.getByRole('menu')).toBeVisible();
  await expectNoSeriousViolations(page, 'notification bell');
  await page.keyboard.press('Escape');
  await expect(bell).toBeFocused();

  const edit = card.getByRole('button', { name: 'Edit post' });
  await edit.click();
  const editDialog = page.getByRole('dialog', { name: /Edit/ });
  await expect(editDialog).toBeVisible();
  await expectNoSeriousViolations(page, 'edit post dialog');
  await expectFocusTrapped(page, editDialog, 'the edit post dialog', edit);

  const remove = card.getByRole('button', { name: 'Delete post' });
  await remove.click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toBeVisible();
  await expectNoSeriousViolations(page, 'delete post confirmation');
  await expectFocusTrapped(page, confirm, 'the delete confirmation', remove);

  const suggest = page.getByRole('button', { name: 'Make a Suggestion' });
  await suggest.click();
  const suggestion = page.getByRole('dialog', { name: /Suggestion/ });
  await expect(suggestion).toBeVisible();
  await expectNoSeriousViolations(page, 'suggestion dialog');
  await expectFocusTrapped(page, suggestion, 'the suggestion dialog', suggest);
});

test('the EMERGENCY ALERT modal keeps the focus until acknowledged', async ({ browser }) => {
  const staff = await createStaffMember(browser, 'Accessible');
  const adminContext = await browser.newContext();
  const staffContext = await browser.newContext();
  const admin = await adminContext.newPage();
  const colleague = await staffContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await signIn(colleague, staff.email, staff.password);
  await writeUrgentPost(admin, 'Accessibility drill: fire doors closed');
  const modal = colleague.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  await expect(modal).toBeVisible();
  await expectNoSeriousViolations(colleague, 'EMERGENCY ALERT modal');
  await expectFocusTrapped(colleague, modal, 'the EMERGENCY ALERT modal');
  await modal.getByRole('button', { name: 'I have read this message' }).first().click();
  await expect(modal).toHaveCount(0);
  await adminContext.close();
  await staffContext.close();
});

test('residents and admin pages with their dialogs', async ({ page }) => {
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/residents');
  await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
  await expectNoSeriousViolations(page, 'residents page');
  await expectAllControlsReachable(page, 'residents page', page.getByRole('main'));
  const add = page.getByRole('button', { name: 'Add Resident' });
  await add.click();
  const form = page.getByRole('dialog', { name: 'Add New Resident' });
  await expect(form).toBeVisible();
  await expectNoSeriousViolations(page, 'add resident dialog');
  await expectFocusTrapped(page, form, 'the add resident dialog', add);

  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'System Administration' })).toBeVisible();
  await page.getByRole('button', { name: 'Show Audit Log' }).click();
  await expectNoSeriousViolations(page, 'admin page');
  const editUser = page.getByRole('button', { name: /^Edit/ }).first();
  await editUser.click();
  const editDialog = page.getByRole('dialog', { name: 'Edit User' });
  await expect(editDialog).toBeVisible();
  await expectNoSeriousViolations(page, 'edit user dialog');
  await expectFocusTrapped(page, editDialog, 'the edit user dialog', editUser);
});
