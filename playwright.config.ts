import { defineConfig, devices } from '@playwright/test';
import { CHROMIUM } from './scripts/chromium';
import { E2E_BASE_PORT, E2E_SERVER_INDEX } from './e2e/env';

/** Journeys run side by side, each worker against a server of its own (decision 160); E2E_WORKERS overrides. */
const WORKERS = Number(process.env.E2E_WORKERS ?? 2);

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
  workers: WORKERS,
  retries: 0,
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    // Read again in each worker, whose parallel index picks its own server (e2e/env.ts).
    baseURL: `http://localhost:${E2E_BASE_PORT + E2E_SERVER_INDEX}`,
    // A trace records every frame of every journey; CI keeps no file of its run, so it records none there.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
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
  // One server per worker, started one after the other (the first builds the client if its sources changed).
  webServer: Array.from({ length: WORKERS }, (_, index) => ({
    command: 'node --import tsx e2e/serve.ts',
    url: `http://localhost:${E2E_BASE_PORT + index}/api/config`,
    timeout: 180_000,
    reuseExistingServer: false,
    stdout: 'pipe' as const,
    env: { E2E_PORT: String(E2E_BASE_PORT), E2E_SERVER_INDEX: String(index) },
  })),
});
