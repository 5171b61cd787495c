import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientBuildError, ensureClientBuilt } from './build-client';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** An app folder with sources written at `sourcesAt` and, when `builtAt` is given, a stamped build. */
function appFolder(sourcesAt: Date, builtAt?: Date): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-build-'));
  roots.push(root);
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'main.tsx'), '');
  for (const entry of ['src/main.tsx', 'src']) fs.utimesSync(path.join(root, entry), sourcesAt, sourcesAt);
  if (builtAt) {
    fs.mkdirSync(path.join(root, 'dist'));
    fs.writeFileSync(path.join(root, 'dist', '.build-stamp'), '');
    fs.utimesSync(path.join(root, 'dist', '.build-stamp'), builtAt, builtAt);
  }
  return root;
}

const EARLIER = new Date('2026-11-01T10:00:00Z');
const LATER = new Date('2026-11-02T10:00:00Z');

describe('building the client on start', () => {
  it('builds and stamps a missing client when the build tools are installed', async () => {
    const root = appFolder(EARLIER);
    const build = vi.fn(async (at: string) => fs.mkdirSync(path.join(at, 'dist')));
    await ensureClientBuilt(() => undefined, { root, loadBuild: async () => build });
    expect(build).toHaveBeenCalledWith(root);
    expect(fs.existsSync(path.join(root, 'dist', '.build-stamp'))).toBe(true);
  });

  it('leaves a build newer than its sources alone, without loading the build tools', async () => {
    const loadBuild = vi.fn(async () => null);
    await ensureClientBuilt(() => undefined, { root: appFolder(EARLIER, LATER), loadBuild });
    expect(loadBuild).not.toHaveBeenCalled();
  });

  it('serves an older build as it is when the build tools are not installed (npm ci --omit=dev), and says so', async () => {
    const log = vi.fn();
    await ensureClientBuilt(log, { root: appFolder(LATER, EARLIER), loadBuild: async () => null });
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/build tools are not installed, so it is served as it is/));
  });

  it('stops with what to run when there is neither a build nor the tools to make one', async () => {
    const start = ensureClientBuilt(() => undefined, { root: appFolder(EARLIER), loadBuild: async () => null });
    await expect(start).rejects.toThrow(ClientBuildError);
    await expect(start).rejects.toThrow(/npm ci && npm run build, then npm ci --omit=dev/);
  });
});
