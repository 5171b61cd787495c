import { describe, expect, it } from 'vitest';
import { chromiumInstallCommand, findChromium, type ChromiumSearch } from './chromium';

const machine = (files: string[], overrides: Partial<ChromiumSearch> = {}): ChromiumSearch => ({
  env: {},
  platform: 'linux',
  exists: (file) => files.includes(file),
  playwrightPath: () => '/home/me/.cache/ms-playwright/chromium-1234/chrome-linux/chrome',
  ...overrides,
});

describe('finding a Chromium for the browser tests', () => {
  it('takes CHROMIUM_PATH when it is set, and reports nothing when that file is missing', () => {
    const files = ['/opt/chrome', '/usr/bin/chromium'];
    expect(findChromium(machine(files, { env: { CHROMIUM_PATH: '/opt/chrome' } }))).toEqual({
      path: '/opt/chrome',
      source: 'CHROMIUM_PATH',
    });
    expect(findChromium(machine(files, { env: { CHROMIUM_PATH: '/nowhere' } }))).toBeNull();
  });

  it('prefers Playwright’s own Chromium when it was installed, on any system', () => {
    const managed = '/home/me/.cache/ms-playwright/chromium-1234/chrome-linux/chrome';
    expect(findChromium(machine([managed, '/usr/bin/chromium']))).toEqual({ path: managed, source: 'Playwright' });
    const mac = '/Users/me/Library/Caches/ms-playwright/chromium-1234/chrome-mac/Chromium.app/Contents/MacOS/Chromium';
    expect(findChromium(machine([mac], { platform: 'darwin', playwrightPath: () => mac }))).toEqual({
      path: mac,
      source: 'Playwright',
    });
  });

  it('finds the system’s Chromium on Debian, Ubuntu’s snap and macOS, and nothing where there is none', () => {
    expect(findChromium(machine(['/usr/bin/chromium']))?.path).toBe('/usr/bin/chromium');
    expect(findChromium(machine(['/snap/bin/chromium']))?.path).toBe('/snap/bin/chromium');
    const chrome = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
    expect(findChromium(machine([chrome], { platform: 'darwin' }))).toEqual({ path: chrome, source: 'system' });
    expect(
      findChromium(
        machine([], {
          playwrightPath: () => {
            throw new Error('unsupported');
          },
        }),
      ),
    ).toBeNull();
  });

  it('looks at CHROMIUM_PATH first, then Playwright’s own, then the system’s: Fedora’s, then Chrome', () => {
    const managed = '/home/me/.cache/ms-playwright/chromium-1234/chrome-linux/chrome';
    const everything = ['/opt/chrome', managed, '/usr/bin/chromium', '/usr/bin/google-chrome'];
    expect(findChromium(machine(everything, { env: { CHROMIUM_PATH: '/opt/chrome' } }))?.source).toBe('CHROMIUM_PATH');
    expect(findChromium(machine(everything.slice(1)))?.source).toBe('Playwright');
    expect(findChromium(machine(everything.slice(2)))?.path).toBe('/usr/bin/chromium');
    expect(findChromium(machine(['/usr/bin/chromium-browser', '/usr/bin/google-chrome']))?.path).toBe(
      '/usr/bin/chromium-browser',
    );
    expect(findChromium(machine(['/usr/bin/google-chrome-stable']))?.path).toBe('/usr/bin/google-chrome-stable');
  });

  it('names the one install command for the system', () => {
    expect(chromiumInstallCommand('linux', 'ID=debian\nVERSION_ID="12"')).toBe(
      'sudo apt-get update && sudo apt-get install -y chromium',
    );
    expect(chromiumInstallCommand('linux', 'ID=ubuntu\nID_LIKE=debian')).toBe(
      'npx playwright install --with-deps chromium',
    );
    expect(chromiumInstallCommand('linux', 'ID="fedora"')).toBe('sudo dnf install -y chromium');
    expect(chromiumInstallCommand('darwin')).toBe('npx playwright install chromium');
    expect(chromiumInstallCommand('win32')).toBe('npx playwright install chromium');
  });
});
