import fs from 'node:fs';
import { chromium } from 'playwright-core';

/** Where the usual systems install Chromium or Chrome: Debian's and Fedora's packages, Ubuntu's snap, the macOS apps. */
const SYSTEM_PATHS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/snap/bin/chromium',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ],
  darwin: [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  ],
  win32: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
  ],
};

export interface FoundChromium {
  path: string;
  /** Who named it: the CHROMIUM_PATH setting, Playwright's own download, or the system's package. */
  source: 'CHROMIUM_PATH' | 'Playwright' | 'system';
}

/** What the search looks at; tests pass their own. */
export interface ChromiumSearch {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  exists: (file: string) => boolean;
  /** Where Playwright keeps the Chromium `npx playwright install chromium` downloads. */
  playwrightPath: () => string;
}

const thisMachine: ChromiumSearch = {
  env: process.env,
  platform: process.platform,
  exists: (file) => fs.existsSync(file),
  playwrightPath: () => chromium.executablePath(),
};

/**
 * The Chromium the journeys, benches and screenshots drive: CHROMIUM_PATH when set, else Playwright's own when it was
 * installed, else a system one on the usual paths; null when there is none.
 */
export function findChromium(search: ChromiumSearch = thisMachine): FoundChromium | null {
  const named = search.env.CHROMIUM_PATH;
  if (named) return search.exists(named) ? { path: named, source: 'CHROMIUM_PATH' } : null;
  let managed = '';
  try {
    managed = search.playwrightPath();
  } catch {
    // Playwright names no download for this platform.
  }
  if (managed && search.exists(managed)) return { path: managed, source: 'Playwright' };
  const system = (SYSTEM_PATHS[search.platform] ?? []).find((file) => search.exists(file));
  return system ? { path: system, source: 'system' } : null;
}

/** The one command that installs a Chromium on this system (`osRelease`: the text of /etc/os-release on Linux). */
export function chromiumInstallCommand(platform: NodeJS.Platform, osRelease = ''): string {
  if (platform === 'linux') {
    const ids = /^ID(?:_LIKE)?=(.*)$/gm;
    const family = [...osRelease.matchAll(ids)].map((match) => match[1].replace(/"/g, '')).join(' ');
    // Ubuntu's chromium package is a snap stub; Playwright's download with its libraries works there.
    if (/\bubuntu\b/.test(family)) return 'npx playwright install --with-deps chromium';
    if (/\bdebian\b/.test(family)) return 'sudo apt-get update && sudo apt-get install -y chromium';
    if (/\b(fedora|rhel)\b/.test(family)) return 'sudo dnf install -y chromium';
  }
  return 'npx playwright install chromium';
}

/** Read once: the journeys' config, the benches and the screenshots all ask. */
export const CHROMIUM: FoundChromium | null = findChromium();
