// `npm run screenshots`: the README's pictures of the main screens, taken in Debian's Chromium from the demo
// data (server/demo.ts) on a throw-away data folder, written to docs/screenshots/*.png (palette PNGs, small
// enough to commit). Run it again after the screens change.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';
import sharp from 'sharp';
import { CHROMIUM } from './chromium';
import { ensureClientBuilt } from '../server/build-client';
import { loadConfig } from '../server/config';
import { closeDb, openDb } from '../server/db/client';
import { DEMO_PASSWORD, seedDemo } from '../server/demo';
import { findUserByEmail } from '../server/features/users/users.queries';
import { databaseFile, startServer } from '../server/server';

const OUT_DIR = path.resolve('docs', 'screenshots');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Who the pictures are taken as: the demo's System Administrator sees every screen. */
const VIEWER = 'sarah.mitchell@demo.example';
const COLLEAGUE = 'tom.barker@demo.example';
const MANAGER = 'james.okafor@demo.example';

/** Everyday profiles for the Residents page: likes and routines, nothing clinical. */
const RESIDENTS = [
  {
    name: 'Margaret Hale',
    likeToBeCall: 'Peggy',
    houseTags: ['Giles House'],
    interestsHappyPlace: 'Ballroom dancing, the crossword after breakfast and the garden bench in the sun.',
    strengthsAbilities: 'A great sense of humour and wonderful stories about the dance halls.',
  },
  {
    name: 'Arthur Bennett',
    likeToBeCall: 'Art',
    houseTags: ['The Lodges'],
    interestsHappyPlace: 'Saturday football on the radio and his allotment.',
    strengthsAbilities: 'Always the first to help set up for film night.',
  },
  {
    name: 'Joan Whitaker',
    houseTags: ['Apps House'],
    interestsHappyPlace: 'Singing, and phoning her sister every Sunday afternoon.',
    strengthsAbilities: 'A wonderful singer; she leads the Friday choir.',
  },
  {
    name: 'Dev Patel',
    likeToBeCall: 'Dev',
    houseTags: ['Main Road'],
    interestsHappyPlace: 'Chess, and a quiet room in the evening with his music.',
    strengthsAbilities: 'Patient and kind; teaches chess to anyone who asks.',
  },
];

/** Signs in over HTTP (for the data the demo does not have yet: a chat, residents). */
async function apiSession(base: string, email: string) {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in of ${email} failed: ${login.status}`);
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  return async (urlPath: string, body: unknown) => {
    const res = await fetch(base + urlPath, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${urlPath} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
}

async function addChatAndResidents(base: string, viewerId: string): Promise<void> {
  const tom = await apiSession(base, COLLEAGUE);
  const { id } = await tom('/api/conversations', { participantId: viewerId });
  const sarah = await apiSession(base, VIEWER);
  const lines: [typeof tom, string][] = [
    [tom, 'Morning Sarah, is the minibus free on Wednesday for the seaside trip?'],
    [sarah, "Yes, it's booked for you from 9:30. Keys are in the office."],
    [tom, 'Brilliant, thank you! We will be back by 16:00.'],
    [sarah, 'Have a lovely day, and send some photos for the feed.'],
  ];
  for (const [send, content] of lines) await send(`/api/conversations/${id}/messages`, { content });
  const james = await apiSession(base, MANAGER);
  for (const resident of RESIDENTS) await james('/api/residents', resident);
}

/** Saves a screenshot as a palette PNG: a fraction of the size, no visible change on these flat screens. */
async function save(page: Page, name: string): Promise<void> {
  // The sign-in toast would cover part of the first pictures.
  await page
    .getByText('Welcome back!')
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => undefined);
  await page.waitForTimeout(400);
  const raw = await page.screenshot();
  const file = path.join(OUT_DIR, `${name}.png`);
  await sharp(raw).png({ palette: true, quality: 90, compressionLevel: 9 }).toFile(file);
  console.log(`  ${path.relative(process.cwd(), file)} (${Math.round(fs.statSync(file).size / 1024)} KB)`);
}

async function newContext(browser: Browser, base: string, size: typeof DESKTOP): Promise<BrowserContext> {
  const phone = size.width < 600;
  const context = await browser.newContext({
    baseURL: base,
    viewport: size,
    deviceScaleFactor: 1,
    isMobile: phone,
    hasTouch: phone,
    reducedMotion: 'reduce',
  });
  // The "Enable Push Notifications" prompt would cover the feed (it has a test of its own).
  await context.addInitScript(() => localStorage.setItem('hasSeenPushPrompt', 'true'));
  return context;
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL((url) => url.pathname === '/');
}

/** Acknowledges every emergency alert the demo's urgent posts raised, as a person would. */
async function acknowledgeAlerts(page: Page): Promise<void> {
  const modal = page.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
  while (await modal.isVisible()) {
    await modal.getByRole('button', { name: 'I have read this message' }).first().click();
    await page.waitForTimeout(300);
  }
}

async function waitForFeed(page: Page): Promise<void> {
  await page.getByRole('region', { name: 'Create a post' }).waitFor();
  await page.locator('article').first().waitFor({ timeout: 30_000 });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-screenshots-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    ADMIN_TWO_FACTOR: 'optional',
  });
  await ensureClientBuilt((m) => console.log(m));
  const db = openDb(databaseFile(config));
  await seedDemo(db, { orgName: config.orgName });
  const viewerId = (await findUserByEmail(db, VIEWER))!.id;
  await closeDb(db);
  const server = await startServer(config);
  const base = `http://localhost:${server.port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM?.path,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  try {
    await addChatAndResidents(base, viewerId);
    fs.mkdirSync(OUT_DIR, { recursive: true });
    console.log(`Screenshots of ${base}:`);

    const desktop = await (await newContext(browser, base, DESKTOP)).newPage();
    await desktop.goto('/');
    await desktop
      .getByRole('link', { name: /sign in/i })
      .first()
      .waitFor();
    await save(desktop, 'landing');
    await desktop.goto('/login');
    await desktop.getByLabel('Email').waitFor();
    await save(desktop, 'sign-in');
    await signIn(desktop, VIEWER);
    const alert = desktop.getByRole('alertdialog', { name: 'EMERGENCY ALERT' });
    await alert.waitFor({ timeout: 30_000 });
    await save(desktop, 'emergency-alert');
    await acknowledgeAlerts(desktop);
    await waitForFeed(desktop);
    await save(desktop, 'feed-desktop');
    await desktop.getByRole('complementary', { name: 'Sidebar' }).getByRole('button', { name: /^Chat/ }).click();
    await desktop.getByRole('list', { name: 'Conversations' }).getByRole('button').first().click();
    await desktop.getByRole('list', { name: 'Messages' }).getByText('send some photos').waitFor();
    await save(desktop, 'chat');
    await desktop.keyboard.press('Escape');
    await desktop.goto('/residents');
    await desktop.getByText('Margaret Hale').first().waitFor({ timeout: 30_000 });
    await save(desktop, 'residents');
    await desktop.goto('/admin');
    await desktop.getByText('Nia').first().waitFor({ timeout: 30_000 });
    await save(desktop, 'admin');

    const phone = await (await newContext(browser, base, PHONE)).newPage();
    await signIn(phone, COLLEAGUE);
    await phone
      .getByRole('alertdialog', { name: 'EMERGENCY ALERT' })
      .waitFor({ timeout: 15_000 })
      .catch(() => undefined);
    await acknowledgeAlerts(phone);
    await waitForFeed(phone);
    await save(phone, 'feed-phone');
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error('The screenshots could not be taken:', error);
  process.exit(1);
});
