import type { Browser, Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { ADMIN, expect, readOutbox, signIn, test, uniqueEmail } from './fixtures';
import { startKillableServer } from './support/offline';

const PASSWORD = 'Admin!Second2026';

/** A new admin made by the System Administrator, with a password chosen from the invitation. */
async function createAdmin(browser: Browser, firstName: string): Promise<string> {
  const email = uniqueEmail(firstName.toLowerCase());
  const context = await browser.newContext();
  try {
    const api = context.request;
    const started = Date.now();
    expect(
      (await api.post('/api/auth/login', { data: { email: ADMIN.email, password: ADMIN.password } })).status(),
    ).toBe(200);
    const created = await api.post('/api/admin/users', {
      data: { email, firstName, lastName: 'Guard', userType: 'admin' },
    });
    expect(created.status()).toBe(201);
    const token = new URL((await readOutbox(email, started - 1)).link!).searchParams.get('token');
    expect((await api.post('/api/auth/reset-password', { data: { token, password: PASSWORD } })).status()).toBe(200);
  } finally {
    await context.close();
  }
  return email;
}

/** A code of the authenticator app, as the person's phone would show it `stepsAhead` steps from now. */
function codeOf(secret: string, stepsAhead = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}

async function signOut(page: Page) {
  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page.getByText('You have been logged out successfully').first()).toBeVisible();
}

async function passwordStep(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

test('an admin sets up an authenticator app, signs in with a code, and a recovery code works once', async ({
  page,
  browser,
}) => {
  const email = await createAdmin(browser, 'Tessa');
  await signIn(page, email, PASSWORD);

  await page.getByRole('button', { name: 'Profile menu' }).click();
  await page.getByRole('menuitem', { name: 'Two-factor sign-in' }).click();
  await expect(page.getByRole('heading', { name: 'Two-factor sign-in' })).toBeVisible();
  await page.getByRole('button', { name: 'Set up authenticator app' }).click();
  await expect(page.getByRole('img', { name: 'QR code to scan with your authenticator app' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
  await page.getByLabel('Enter the 6-digit code from your authenticator app').fill(codeOf(secret));
  await page.getByRole('button', { name: 'Turn on' }).click();
  const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(codes).toHaveCount(10);
  const recovery = (await codes.allInnerTexts()).map((code) => code.trim());
  await page.getByRole('button', { name: 'I have saved my recovery codes' }).click();
  await expect(page.getByText(/Authenticator app is on\. 10 of 10 recovery codes left/)).toBeVisible();
  await page.getByRole('link', { name: 'Back to the feed' }).click();
  await signOut(page);

  // The password alone is not enough now; the next step's code is accepted (the one used to confirm is spent).
  await passwordStep(page, email);
  const codeField = page.getByLabel('Enter the 6-digit code from your authenticator app');
  await expect(codeField).toBeVisible();
  await codeField.fill(codeOf(secret, 1));
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await signOut(page);

  await passwordStep(page, email);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Enter one of your recovery codes').fill(recovery[0]);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
  await signOut(page);

  await passwordStep(page, email);
  await page.getByRole('button', { name: 'Use a recovery code' }).click();
  await page.getByLabel('Enter one of your recovery codes').fill(recovery[0]);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('That recovery code is not right or has been used.').first()).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

test('a passkey added on the two-factor page signs in without a password (Chromium virtual authenticator)', async ({
  page,
  browser,
}) => {
  const email = await createAdmin(browser, 'Pasha');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await signIn(page, email, PASSWORD);
  await page.goto('/two-factor');
  await page.getByLabel('Passkey name').fill('Laptop');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  // The first second factor brings the recovery codes, shown once.
  await expect(page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved my recovery codes' }).click();
  await expect(page.getByRole('list', { name: 'Your passkeys' })).toContainText('Laptop');
  await page.getByRole('link', { name: 'Back to the feed' }).click();
  await signOut(page);

  await page.goto('/login');
  await page.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('link', { name: 'Admin Dashboard' }).first()).toBeVisible();
});

test('an admin without a second factor is taken to set one up right after the password, and goes on once done', async ({
  browser,
}) => {
  // A server of its own with the requirement as in production: the suite's server turns it off (decision 148).
  const server = await startKillableServer({ ADMIN_TWO_FACTOR: 'required' });
  const context = await browser.newContext({ baseURL: server.baseURL });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
    await page.goto('/login');
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page).toHaveURL(/\/two-factor$/);
    await expect(page.getByText('Two-factor sign-in is required for administrators')).toBeVisible();
    // Nothing else opens until it is done.
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/two-factor$/);

    await page.getByRole('button', { name: 'Set up authenticator app' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Enter the 6-digit code from your authenticator app').fill(codeOf(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
    await page.getByRole('button', { name: 'I have saved my recovery codes' }).click();
    await page.getByRole('link', { name: 'Back to the feed' }).click();
    await page.getByRole('link', { name: 'Admin Dashboard' }).first().click();
    await expect(page.getByText('User Management Panel')).toBeVisible();
  } finally {
    await context.close();
    await server.close();
  }
});
