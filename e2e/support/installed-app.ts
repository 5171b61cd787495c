import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type BrowserType, type LaunchOptions, type Page } from 'playwright-core';
import type { Wifi } from './wifi';

/** An installed app: a persistent Chromium profile, so closing it keeps its storage and cookies as a phone does. */
export interface InstalledApp {
  context: BrowserContext;
  page: Page;
}

export interface InstalledAppOptions {
  /** The device's Wi-Fi the app's traffic goes through. */
  wifi: Wifi;
  /** Whether the Wi-Fi is on when the app opens; false opens it without a connection. */
  online?: boolean;
  /** The app's address; from @playwright/test, `test.info().project.use.baseURL`. */
  baseURL: string;
  /** How Chromium is launched; from @playwright/test, `test.info().project.use.launchOptions`. */
  launchOptions?: LaunchOptions;
  /** Which browser type launches the profile; playwright-core's Chromium unless a script brings its own. */
  browserType?: BrowserType;
}

/** Opens the installed app on a profile folder, through the device's Wi-Fi, on the feed (decision 114). */
export async function openInstalledApp(
  profileDir: string,
  { wifi, online = true, baseURL, launchOptions, browserType = chromium }: InstalledAppOptions,
): Promise<InstalledApp> {
  const context = await browserType.launchPersistentContext(profileDir, {
    ...launchOptions,
    baseURL,
    proxy: wifi.proxy,
    offline: !online,
  });
  if (!online) await wifi.off(context);
  else await wifi.on(context);
  const page = context.pages()[0] ?? (await context.newPage());
  if (process.env.E2E_CONSOLE) {
    page.on('console', (m) => console.log('[page]', m.type(), m.text()));
    context.on(
      'response',
      (r) =>
        r.url().includes('/api/') && console.log('[net]', r.request().method(), new URL(r.url()).pathname, r.status()),
    );
  }
  // The push prompt would cover the screens a journey reads.
  await page.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
  await page.goto('/');
  return { context, page };
}

/** Closes the installed app as a person swipes it away: the profile folder keeps its storage for the next open. */
export async function closeInstalledApp(app: InstalledApp): Promise<void> {
  await app.context.close();
}

/** A profile folder of its own for one journey; remove it with `removeProfileDir` afterwards. */
export function newProfileDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'sp-installed-app-'));
}

/** Removes a profile folder once its app is closed, so journeys never share a device. */
export function removeProfileDir(profileDir: string): void {
  // After a failed journey Chromium may still be writing there as it closes: retry instead of failing again.
  fs.rmSync(profileDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
