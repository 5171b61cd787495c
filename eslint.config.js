import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Import boundaries of the house style: src -> schema <- server, sw -> schema; schema imports only zod. */
const boundary = (from, forbidden) => ({
  files: [`${from}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((root) => ({
          group: [`**/${root}/*`, `**/${root}`],
          message: `${from}/ must not import ${root}/`,
        })),
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'data', 'server/db/migrations', 'test-results', 'playwright-report'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: { ...reactHooks.configs.recommended.rules, ...jsxA11y.configs.recommended.rules },
  },
  boundary('schema', ['server', 'src', 'sw']),
  { ...boundary('src', ['server', 'sw']), ignores: ['src/**/*.test.ts'] },
  boundary('server', ['src', 'sw']),
  boundary('sw', ['server', 'src']),
  {
    // The app takes the rules of posts and the sync protocol's names from zod-free modules: building the schemas
    // in posts.ts and sync.ts cost the first screen time on a slow phone for nothing (decision 106).
    files: ['src/**/*.{ts,tsx}', 'sw/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'sw/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/schema/posts', '**/schema/sync'],
              allowTypeImports: true,
              message: 'Import values from schema/post-rules.ts or schema/sync-protocol.ts; only types from here.',
            },
          ],
        },
      ],
    },
  },
);
