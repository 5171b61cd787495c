import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM } from './scripts/chromium';

const PORT = Number(process.env.E2E_PORT ?? 3100);

/**
 * Journeys in a real Chromium (CHROMIUM_PATH, Playwright's own, or the system's: scripts/chromium.ts) against the real
 * server on a throw-away data folder.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  // The longest journeys (several accounts, three browsers) take about 20 s here, and 60 s when the shared machine
  // runs slow (one CI run took 2.5 times as long throughout): the budget is for the whole journey, not a check.
  timeout: 90_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // One worker: the journeys share one server, where an urgent post to all staff would alert the colleagues of a
  // journey running beside it and cover their screens (decision 118).
  workers: 1,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    baseURL: `http://localhost:${PORT}`,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: CHROMIUM?.path,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  projects: [
    { name: 'desktop', use: { ...devices['Desktop Chrome'], channel: undefined }, testIgnore: '**/*.phone.spec.ts' },
    {
      name: 'phone',
      use: { ...devices['Pixel 7'], channel: undefined },
      testMatch: '**/*.phone.spec.ts',
    },
  ],
  webServer: {
    command: 'node --import tsx e2e/serve.ts',
    url: `http://localhost:${PORT}/api/config`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    env: { E2E_PORT: String(PORT) },
  },
});
