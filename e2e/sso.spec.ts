import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { loadConfig } from '../server/config';
import { insertUser } from '../server/features/users/users.queries';
import { startServer, type RunningServer } from '../server/server';
import { freePort, startOidcProvider, type OidcTestProvider } from '../server/test/oidc-provider';
import { expectNoSeriousViolations } from './a11y';
import { E2E_ADMIN } from './env';

/**
 * Single sign-on through a real OpenID provider on this machine (decision 149). The journey runs its own app server
 * with the OIDC settings, so the other journeys' server and sign-in screen stay as they are.
 */
let op: OidcTestProvider;
let app: RunningServer;
let base: string;
const dataDir = path.resolve('.tmp', 'e2e-sso-data');

test.beforeAll(async () => {
  op = await startOidcProvider();
  const port = await freePort();
  base = `http://localhost:${port}`;
  op.allowRedirect(`${base}/api/auth/sso/callback`);
  fs.rmSync(dataDir, { recursive: true, force: true });
  app = await startServer(
    loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: base,
      LOG_LEVEL: 'error',
      ORG_NAME: 'Example Care Ltd',
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: op.clientId,
      OIDC_CLIENT_SECRET: op.clientSecret,
      OIDC_LABEL: 'Example Provider',
    }),
  );
});

test.afterAll(async () => {
  await app?.close();
  await op?.close();
});

/** An active staff account made by an administrator (an invitation not yet used: no password). */
async function buildColleague(firstName: string): Promise<string> {
  const email = `${firstName.toLowerCase()}-${randomUUID().slice(0, 6)}@care.example`;
  const at = Date.now();
  await insertUser(app.deps.db, {
    id: randomUUID(),
    email,
    passwordHash: null,
    firstName,
    lastName: 'Colleague',
    role: 'staff',
    isActive: true,
    pendingApproval: false,
    createdAt: at,
    updatedAt: at,
  });
  return email;
}

test('a colleague signs in through the local provider and lands in the app', async ({ page }) => {
  const email = await buildColleague('Sasha');
  op.addAccount('sasha', { email, email_verified: true });
  await page.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
  await page.goto(`${base}/login`);
  const button = page.getByRole('link', { name: 'Sign in with Example Provider' });
  await expect(button).toBeVisible();
  await expectNoSeriousViolations(page, 'the sign-in screen with single sign-on');

  await button.click();
  await expect(page).toHaveURL(new RegExp(`^${op.issuer}/interaction/`));
  await page.getByLabel('Account').fill('sasha');
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(`${base}/`);
  await expect(page.getByRole('heading', { name: /Sasha/ })).toBeVisible();
  const me = await page.request.get(`${base}/api/auth/user`);
  expect(await me.json()).toMatchObject({ email, role: 'staff' });
});

test('an e-mail with no staff account sees why on the sign-in screen', async ({ page }) => {
  op.addAccount('visitor', { email: 'visitor@elsewhere.example', email_verified: true });
  await page.goto(`${base}/login`);
  await page.getByRole('link', { name: 'Sign in with Example Provider' }).click();
  await page.getByLabel('Account').fill('visitor');
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(`${base}/login?sso=no_account`);
  await expect(page.getByRole('alert')).toContainText(
    'There is no active staff account for the e-mail address of your sign-in account.',
  );
  await expectNoSeriousViolations(page, 'the sign-in screen after a refused single sign-on');
  expect((await page.request.get(`${base}/api/auth/user`)).status()).toBe(401);
});

test('with password sign-in off, the screen offers the provider and a small way in for the administrator', async ({
  page,
}) => {
  // The server's own refusal is tested in server/features/auth/oidc.test.ts; here the screen reads the setting.
  await page.route(`${base}/api/config`, async (route) => {
    const answer = await route.fetch();
    await route.fulfill({ response: answer, json: { ...(await answer.json()), passwordSignIn: false } });
  });
  await page.goto(`${base}/login`);
  await expect(page.getByRole('link', { name: 'Sign in with Example Provider' })).toBeVisible();
  await expect(page.getByLabel('Email')).toBeHidden();
  await expect(page.getByRole('link', { name: /Don.t have an account/ })).toBeHidden();
  await expectNoSeriousViolations(page, 'the sign-in screen with password sign-in off');

  await page.getByRole('link', { name: 'Administrator sign-in' }).click();
  await expect(page).toHaveURL(`${base}/login?admin`);
  await expect(page.getByText('Password sign-in is for the System Administrator only.')).toBeVisible();
  await page.getByLabel('Email').fill(E2E_ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill(E2E_ADMIN.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(page.getByText('Welcome back!').first()).toBeVisible();
});
