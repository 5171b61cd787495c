import { readdirSync } from 'node:fs';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

/** The messages ESLint's config (eslint.config.js) reports for one import line in a file at `filePath`. */
async function importProblems(filePath: string, specifier: string): Promise<string[]> {
  const code = `import { shared } from '${specifier}';\nexport { shared };\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const features = readdirSync('src/features', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('feature boundaries held by the lint (decision 134)', () => {
  it('reports a feature importing another feature, whichever way the path is written', async () => {
    expect(await importProblems('src/features/chat/x.ts', '../feed/use-feed-data')).toEqual([
      expect.stringContaining('src/features/chat/ must not import another feature'),
    ]);
    expect(await importProblems('src/features/chat/x.tsx', '../../features/feed/post-card')).toHaveLength(1);
    expect(await importProblems('src/features/feed/x.ts', '../admin/admin.css')).toHaveLength(1);
    expect(await importProblems('src/features/chat/x.test.ts', '../feed/feed-actions')).toHaveLength(1);
  });

  it('bounds every feature folder, so a new one is held from its first file', async () => {
    expect(features.length).toBeGreaterThan(1);
    for (const feature of features) {
      const other = features.find((name) => name !== feature);
      expect(await importProblems(`src/features/${feature}/x.ts`, `../${other}/x`), feature).toHaveLength(1);
    }
  });

  it('lets a feature import its own files, src/lib, src/components, src/db and schema/', async () => {
    for (const specifier of [
      './chat-state',
      '../../features/chat/chat-state',
      '../../lib/use-observable',
      '../../components/ui/count-badge',
      '../../db/local-store-state',
      '../../../schema/format',
    ]) {
      expect(await importProblems('src/features/chat/x.ts', specifier), specifier).toEqual([]);
    }
  });

  it('reports a feature importing src/app, the screens that compose the features', async () => {
    expect(await importProblems('src/features/feed/x.tsx', '../../app/home-screen')).toHaveLength(1);
  });

  it('reports src/lib and src/components importing a feature or src/app', async () => {
    expect(await importProblems('src/lib/form.ts', '../features/auth/current-user')).toEqual([
      expect.stringContaining('src/lib/ is shared by the features'),
    ]);
    expect(await importProblems('src/components/ui/x.tsx', '../../features/chat/chat-button')).toHaveLength(1);
    expect(await importProblems('src/components/x.tsx', '../app/router')).toHaveLength(1);
  });

  it('lets src/app compose the features', async () => {
    expect(await importProblems('src/app/x.tsx', '../features/feed/post-card')).toEqual([]);
  });

  it('keeps the roots’ boundary in a feature beside its own: no server/ outside tests', async () => {
    expect(await importProblems('src/features/chat/x.ts', '../../../server/app')).toEqual([
      expect.stringContaining('src/ must not import server/'),
    ]);
    expect(await importProblems('src/features/chat/x.test.ts', '../../../server/test/test-server')).toEqual([]);
  });
});
