import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import sharp from 'sharp';
import { ADMIN, expect, signIn, test } from './fixtures';

declare global {
  interface Window {
    __blocked?: string[];
  }
}

/**
 * Every request of the context, the service worker's included, that leaves the app's own origin; and every
 * attempt the Content Security Policy blocked (a blocked request never shows as a request), which would mean
 * the app tried to reach another host.
 */
async function watchForeignRequests(context: BrowserContext, baseURL: string): Promise<string[]> {
  const own = new URL(baseURL).origin;
  const foreign: string[] = [];
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (url.origin !== own) foreign.push(`${request.method()} ${request.url()}`);
  });
  await context.addInitScript(() => {
    window.__blocked = [];
    // Only attempts to load something: zod's feature probe for eval is blocked too, and is harmless.
    document.addEventListener('securitypolicyviolation', (e) => {
      if (/^(https?|wss?):/.test(e.blockedURI)) window.__blocked!.push(`${e.effectiveDirective} ${e.blockedURI}`);
    });
  });
  return foreign;
}

/**
 * Lets a screen finish loading and scrolls it to the end and back, so lazy pictures load too. (Not
 * 'networkidle': a signed-in screen keeps its live sync stream open.)
 */
async function settle(page: Page) {
  await page.waitForLoadState('load');
  await page.waitForTimeout(500);
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForTimeout(500);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__blocked), `blocked by the CSP on ${page.url()}`).toEqual([]);
}

const SIZES = [
  { name: 'desktop', use: { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false } },
  {
    name: 'phone',
    use: { viewport: { width: 412, height: 839 }, deviceScaleFactor: 2.6, isMobile: true, hasTouch: true },
  },
];

for (const size of SIZES) {
  test.describe(`at ${size.name} size`, () => {
    test.use(size.use);

    test('every screen loads without a single request to another host', async ({ page, context, baseURL }) => {
      test.setTimeout(120_000);
      const foreign = await watchForeignRequests(context, baseURL!);

      // Signed out: landing, sign-in, registration, forgot and reset password, and a page that does not exist.
      for (const [url, text] of [
        ['/', /Staff Login/],
        ['/login', /Sign In/],
        ['/register', /Create Account/],
        ['/forgot-password', /Send Reset Instructions/],
        ['/reset-password?token=not-a-real-token', /Invalid Link|Validating reset link|Reset|Forgot/],
        ['/no-such-page', /doesn't exist or has been moved/],
      ] as const) {
        await page.goto(url);
        await expect(page.getByText(text).first()).toBeVisible();
        await settle(page);
      }

      // Signed in: the feed with a post carrying a picture, the chat panel, residents, the admin page, 404.
      await signIn(page, ADMIN.email, ADMIN.password);
      const dir = path.resolve('test-results', 'no-third-party');
      fs.mkdirSync(dir, { recursive: true });
      const picture = path.join(dir, 'photo.png');
      await sharp({ create: { width: 32, height: 24, channels: 3, background: '#4C307D' } })
        .png()
        .toFile(picture);
      const text = `Own origin only ${size.name} ${Math.random().toString(36).slice(2, 8)}`;
      const composer = page.getByRole('region', { name: 'Create a post' });
      await composer.getByLabel('Post content').fill(text);
      await composer.getByLabel('Add photos or files').setInputFiles([picture]);
      await composer.getByRole('button', { name: 'Post', exact: true }).click();
      const card = page.getByRole('article').filter({ hasText: text });
      await expect(card.getByRole('img', { name: /^Picture 1 of 1 posted by/ })).toBeVisible();
      await page.reload();
      await expect(card.getByRole('img', { name: /^Picture 1 of 1 posted by/ })).toBeVisible();
      await settle(page);

      // The emoji picker reads its data from the app itself, never from a CDN (decision 129).
      await composer.getByRole('button', { name: 'Add emoji' }).click();
      const picker = page.getByRole('dialog', { name: 'Choose an emoji' });
      await expect(picker.getByRole('gridcell').first()).toBeVisible();
      await picker.getByLabel('Search emoji').fill('heart');
      await expect(picker.getByRole('gridcell').first()).toBeVisible();
      await page.keyboard.press('Escape');
      await expect(picker).toBeHidden();

      await page.goto('/?openChat=true');
      await expect(
        page.getByRole('list', { name: 'Conversations' }).or(page.getByText(/No conversations/)),
      ).toBeVisible();
      await settle(page);

      await page.goto('/residents');
      await expect(page.getByRole('heading', { name: 'Residents OPP' })).toBeVisible();
      await settle(page);

      await page.goto('/admin');
      await expect(page.getByText('User Management Panel')).toBeVisible();
      await expect(page.getByRole('region', { name: /Staff Suggestions/ })).toBeVisible();
      await settle(page);

      await page.goto('/no-such-page');
      await expect(page.getByText("The page you're looking for doesn't exist or has been moved.")).toBeVisible();
      await settle(page);

      expect(foreign, 'requests to hosts other than the app').toEqual([]);
    });
  });
}
