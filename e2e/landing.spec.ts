import { expect, test } from './fixtures';

test.describe('landing screen', () => {
  test('shows the staff login card, the shared computer notice and the footer', async ({ page }) => {
    await page.goto('/');
    await expect(
      page
        .getByRole('button', { name: 'Sign In with Email & Password' })
        .or(page.getByRole('link', { name: 'Sign In with Email & Password' })),
    ).toBeVisible();
    await expect(page.getByText('Shared Computer Notice')).toBeVisible();
    await expect(page.getByText(/Example Care Ltd/).first()).toBeVisible();
    await expect(page.getByRole('link', { name: /help@care\.example/ })).toHaveAttribute(
      'href',
      'mailto:help@care.example',
    );
  });

  test('asks who is signed in and for the settings once, while the script loads', async ({ page }) => {
    const asked: string[] = [];
    page.on('request', (request) => {
      const { pathname } = new URL(request.url());
      if (pathname === '/api/auth/user' || pathname === '/api/config') asked.push(pathname);
    });
    const response = await page.goto('/');
    const html = (await response?.text()) ?? '';
    expect(html).toContain('<link rel="preload" href="/api/auth/user" as="fetch" crossorigin="use-credentials"');
    expect(html).toContain('<link rel="preload" href="/api/config" as="fetch" crossorigin="use-credentials"');
    await expect(page.getByText('Shared Computer Notice')).toBeVisible();
    // The page's preloads are the app's own requests: each is made once, not again when the script runs.
    await expect.poll(() => asked.sort()).toEqual(['/api/auth/user', '/api/config']);
    await page.waitForTimeout(500);
    expect(asked).toHaveLength(2);
  });

  test('says "You have been logged out successfully" and removes logged_out from the address', async ({ page }) => {
    await page.goto('/?logged_out=true');
    await expect(page.getByText('You have been logged out successfully')).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    expect(new URL(page.url()).search).toBe('');
  });

  test('Legacy Access asks for a password and shows the retirement message', async ({ page }) => {
    await page.goto('/');
    const seen: string[] = [];
    page.on('dialog', async (dialog) => {
      seen.push(`${dialog.type()}:${dialog.message()}`);
      if (dialog.type() === 'prompt') await dialog.accept('old-shared-password');
      else await dialog.accept();
    });
    await page.getByRole('button', { name: 'Legacy Access' }).click();
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]).toBe(
      'alert:Legacy access has been retired. Please sign in with your own account or contact support.',
    );
  });

  test('an unknown path shows Page Not Found with a way home', async ({ page }) => {
    await page.goto('/no/such/page');
    await expect(page.getByText("The page you're looking for doesn't exist or has been moved.")).toBeVisible();
    await page
      .getByRole('button', { name: 'Return to Home' })
      .or(page.getByRole('link', { name: 'Return to Home' }))
      .click();
    await expect(page).toHaveURL(/\/$/);
  });

  test('the sign-in form reports the validation messages of schema/auth.ts', async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Invalid email address')).toBeVisible();
    await expect(page.getByText('Password is required')).toBeVisible();
  });

  test('the sign-in screen is usable without zod, which loads once the user starts on the form (decision 113)', async ({
    page,
  }) => {
    const scripts: string[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push(response.url());
    });
    const withZod = async () => {
      const found: string[] = [];
      for (const url of scripts) if ((await (await page.request.get(url)).text()).includes('ZodError')) found.push(url);
      return found;
    };
    await page.goto('/login');
    await expect(page.getByRole('button', { name: 'Sign In' })).toBeEnabled();
    await page.waitForLoadState('networkidle');
    expect(scripts.length).toBeGreaterThan(0);
    expect(await withZod()).toEqual([]);
    // A quick submit, before anything was focused, still waits for the rules and shows their messages.
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Password is required')).toBeVisible();
    expect((await withZod()).length).toBeGreaterThan(0);
  });

  test('a sign-in whose form rules cannot be fetched says the server cannot be reached, then works', async ({
    page,
  }) => {
    // The account schemas' code, and zod's with it, fail to load as on a connection that has just dropped.
    const blocked = /\/assets\/(auth|schemas)-[^/]*\.js$/;
    await page.route(blocked, (route) => route.abort('internetdisconnected'));
    await page.goto('/login');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Unable to connect to the server. Please try again.').first()).toBeVisible();
    await page.unroute(blocked);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Password is required')).toBeVisible();
  });

  test('a wrong password shows "Login failed" with "Invalid email or password"', async ({ page }) => {
    await page.goto('/login');
    await page.getByLabel('Email').fill('nobody@care.example');
    await page.getByLabel('Password', { exact: true }).fill('Wrong!Pass1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expect(page.getByText('Login failed').first()).toBeVisible();
    await expect(page.getByText('Invalid email or password').first()).toBeVisible();
  });
});
