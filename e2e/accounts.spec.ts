import {
  ADMIN,
  createStaffMember,
  expect,
  localInHours,
  readOutbox,
  signIn,
  test,
  uniqueEmail,
  userIdOf,
} from './fixtures';

const PASSWORD = 'Care!Worker2026';

async function signOut(page: import('@playwright/test').Page) {
  await page.getByRole('button', { name: /profile menu|account menu|open profile/i }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully')).toBeVisible();
}

test('register, be approved by a System Administrator, then sign in', async ({ page }) => {
  const email = uniqueEmail('applicant');
  await page.goto('/register');
  await page.getByLabel('First Name').fill('Robin');
  await page.getByLabel('Last Name').fill('Applicant');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(page.getByText('Account created successfully!').first()).toBeVisible();
  await expect(page.getByText(/administrator must approve/i).first()).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);

  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Your account is awaiting approval by an administrator.').first()).toBeVisible();

  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole('link', { name: 'Admin Dashboard' }).first().click();
  await expect(page.getByText('User Management Panel')).toBeVisible();
  await page.getByRole('tab', { name: /Pending approval/ }).click();
  const row = page.getByRole('row', { name: new RegExp(email) }).or(page.getByTestId(`user-${email}`));
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('User approved successfully').first()).toBeVisible();
  await signOut(page);

  await signIn(page, email, PASSWORD);
  await expect(page.getByRole('heading', { name: /Robin/ })).toBeVisible();
});

test('forgot password: the mailed link sets a new password that signs in', async ({ page }) => {
  const email = uniqueEmail('forgetful');
  // The admin invites the member, who sets a first password; then they forget it.
  const started = Date.now();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First Name').fill('Forget');
  await page.getByLabel('Last Name').fill('Ful');
  await page.getByRole('button', { name: /Add Staff Member|Create User|Add User/ }).click();
  await expect(page.getByText('User created successfully').first()).toBeVisible();
  const invite = await readOutbox(email, started - 1);
  await signOut(page);

  await page.goto(invite.link!);
  await page.getByLabel('New Password').fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByRole('button', { name: /Reset Password|Set Password|Save/ }).click();
  await expect(page.getByText('Password Changed!')).toBeVisible();

  const asked = Date.now();
  await page.goto('/forgot-password');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send Reset Instructions' }).click();
  await expect(page.getByRole('heading', { name: 'Check Your Email' })).toBeVisible();
  const mail = await readOutbox(email, asked - 1);
  expect(mail.link).toMatch(/\/reset-password\?token=/);

  await page.goto(mail.link!);
  await expect(page).not.toHaveURL(/token=/);
  const newPassword = 'Brand!New2026';
  await page.getByLabel('New Password').fill(newPassword);
  await page.getByLabel('Confirm Password').fill(newPassword);
  await page.getByRole('button', { name: /Reset Password|Set Password|Save/ }).click();
  await expect(page.getByText('Password Changed!')).toBeVisible();
  await page.getByRole('link', { name: 'Go to Login' }).click();

  await signIn(page, email, newPassword);
});

test('the admin adds a member; the invited member sets a password and signs in', async ({ page }) => {
  const email = uniqueEmail('invited');
  const started = Date.now();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin');
  await expect(page.getByText('Add New Staff Member').first()).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First Name').fill('Ivy');
  await page.getByLabel('Last Name').fill('Invited');
  await page.getByRole('button', { name: /Add Staff Member|Create User|Add User/ }).click();
  await expect(page.getByText('User created successfully').first()).toBeVisible();
  await expect(page.getByText(email)).toBeVisible();

  const mail = await readOutbox(email, started - 1);
  await signOut(page);
  await page.goto(mail.link!);
  await page.getByLabel('New Password').fill(PASSWORD);
  await page.getByLabel('Confirm Password').fill(PASSWORD);
  await page.getByRole('button', { name: /Reset Password|Set Password|Save/ }).click();
  await expect(page.getByText('Password Changed!')).toBeVisible();
  await signIn(page, email, PASSWORD);
  await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toHaveCount(0);
  await page.goto('/admin');
  await expect(page.getByText('System Administrator access required.')).toBeVisible();
});

test('the admin adds an agency worker with an end, filters by type and extends the access (decision 147)', async ({
  page,
}) => {
  const email = uniqueEmail('agency');
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto('/admin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First Name').fill('Agnes');
  await page.getByLabel('Last Name').fill('Agency');
  await page.getByRole('combobox', { name: 'Type', exact: true }).click();
  await page.getByRole('option', { name: 'Agency staff' }).click();
  await page.getByRole('button', { name: 'Add Staff Member' }).click();
  await expect(page.getByText('Agency access must end within 7 days').first()).toBeVisible();

  await page.getByLabel('Access ends').fill(localInHours(53));
  await page.getByRole('button', { name: 'Add Staff Member' }).click();
  await expect(page.getByText('User created successfully').first()).toBeVisible();
  const row = page.getByTestId(`user-${email}`);
  await expect(row.getByText('Agency', { exact: true })).toBeVisible();
  await expect(row.getByText('Access ends in 2 days')).toBeVisible();

  await page.getByRole('combobox', { name: 'Filter by type' }).click();
  await page.getByRole('option', { name: 'Employee' }).click();
  await expect(row).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Filter by type' }).click();
  await page.getByRole('option', { name: 'Agency staff' }).click();
  await expect(row).toBeVisible();
  await expect(page.getByTestId(`user-${ADMIN.email}`)).toHaveCount(0);

  await row.getByRole('button', { name: 'Edit User' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Access ends').fill(localInHours(6 * 24 + 5));
  await dialog.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('User updated successfully').first()).toBeVisible();
  await expect(row.getByText('Access ends in 6 days')).toBeVisible();
});

test('inactivity: a warning at 25 minutes, sign-out at 30', async ({ page }) => {
  await page.clock.install();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.clock.fastForward('25:01');
  await expect(page.getByText('Session Expiring').first()).toBeVisible();
  await page.clock.fastForward('05:00');
  await expect(
    page
      .getByRole('button', { name: 'Sign In with Email & Password' })
      .or(page.getByRole('link', { name: 'Sign In with Email & Password' })),
  ).toBeVisible();
  const status = await page.evaluate(async () => (await fetch('/api/auth/user')).status);
  expect(status).toBe(401);
  // The sign-in screens say why (decision 129), until someone signs in again.
  await expect(page.getByText('You were logged out after 30 minutes without activity.')).toBeVisible();
  await page.goto('/login');
  await expect(page.getByText('You were logged out after 30 minutes without activity.')).toBeVisible();
  await signIn(page, ADMIN.email, ADMIN.password);
  await signOut(page);
  await expect(page.getByText('You were logged out after 30 minutes without activity.')).toHaveCount(0);
});

test('an administrator who is not a System Administrator follows Admin Dashboard to what their role can do, not a refusal (decision 129)', async ({
  browser,
  page,
}) => {
  const member = await createStaffMember(browser, 'Adele');
  const adminContext = await browser.newContext();
  try {
    const api = adminContext.request;
    expect((await api.post('/api/auth/login', { data: ADMIN })).status()).toBe(200);
    const promoted = await api.put(`/api/admin/users/${userIdOf(member.email)}/role`, { data: { role: 'admin' } });
    expect(promoted.status(), 'the System Administrator makes the member an administrator').toBe(200);
  } finally {
    await adminContext.close();
  }
  await signIn(page, member.email, member.password);
  await page.getByRole('link', { name: 'Admin Dashboard' }).first().click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible();
  await expect(page.getByText('Access Denied')).toHaveCount(0);
  const rights = page.getByRole('listitem');
  await expect(rights.filter({ hasText: 'Edit and delete any post' })).toBeVisible();
  await expect(rights.filter({ hasText: 'See who has acknowledged an urgent post' })).toBeVisible();
  await expect(rights.filter({ hasText: "Archive a resident's One Page Profile" })).toBeVisible();
  // What stays a System Administrator's is not offered.
  await expect(page.getByText('Add New Staff Member')).toHaveCount(0);
  await expect(page.getByText(/managed by a System Administrator/)).toBeVisible();
});
