import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PATCHED_FOR } from './versions';

const root = new URL('../../../', import.meta.url);
const readme = fs.readFileSync(new URL('README.md', import.meta.url), 'utf8');
/** The patches the README lists, by their file: each has a `## file.ts` section. */
const listed = [...readme.matchAll(/^## `([\w-]+\.ts)`/gm)].map(([, file]) => file);

function installedVersion(packageDir: string): string | undefined {
  const file = new URL(`${packageDir}/package.json`, root);
  if (!fs.existsSync(file)) return undefined;
  // Every package.json npm installs has a version.
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

function recheck(name: string, installed: string | undefined, expected: string): string {
  return (
    `${name} ${installed ?? '(none)'} is installed, the storage patches were written for ${expected}: re-check each ` +
    `patch listed in src/db/storage-patches/README.md (${listed.join(', ')}), then set PATCHED_FOR in versions.ts`
  );
}

describe('the storage patches', () => {
  it.each(Object.entries(PATCHED_FOR))('were written for the installed %s', (name, expected) => {
    const installed = installedVersion(`node_modules/${name}`);
    expect(installed, recheck(name, installed, expected)).toBe(expected);
  });

  it('patch the one dexie there is: rxdb has no copy of its own', () => {
    const nested = installedVersion('node_modules/rxdb/node_modules/dexie');
    expect(nested, recheck('rxdb/node_modules/dexie', nested, PATCHED_FOR.dexie)).toBeUndefined();
  });

  it('are each described in the README', () => {
    const files = fs
      .readdirSync(new URL('./', import.meta.url))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'versions.ts');
    expect(listed.sort()).toEqual(files.sort());
  });
});
