import { readdirSync } from 'node:fs';
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

/** The folders of src/features/, read here so that a new feature is bounded from its first file. */
const featureFolders = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/**
 * Feature boundaries (decision 134): a layer of src/ forbids `patterns`. These options replace the root boundary's
 * for the layer's files, so the second object brings the root's patterns back where they apply (not in tests).
 */
const srcLayer = (folder, patterns) => {
  const files = [`${folder}/**/*.{ts,tsx}`];
  const rootPatterns = boundary('src', ['server', 'sw']).rules['no-restricted-imports'][1].patterns;
  const rule = (all) => ({ 'no-restricted-imports': ['error', { patterns: all }] });
  return [
    { files, rules: rule(patterns) },
    { files, ignores: ['src/**/*.test.ts'], rules: rule([...rootPatterns, ...patterns]) },
  ];
};

/** A feature imports src/lib, src/components, src/db and schema/; never another feature, nor src/app. */
const featureBoundary = (feature) =>
  srcLayer(`src/features/${feature}`, [
    {
      regex: `^\\.\\./((?!${feature}(/|$))[^./][^/]*(/|$)|\\.\\./(features/(?!${feature}(/|$))|app(/|$)))`,
      message: `src/features/${feature}/ must not import another feature or src/app: move what is shared to src/lib or src/components, or compose the features in src/app (decision 134).`,
    },
  ]);

/** What is shared imports no feature, and not the screens of src/app that compose them. */
const sharedBoundary = (folder) =>
  srcLayer(folder, [
    {
      regex: '^(\\.\\./)+(features|app)(/|$)',
      message: `${folder}/ is shared by the features: it must not import src/features or src/app (decision 134).`,
    },
  ]);

export default tseslint.config(
  {
    ignores: [
      'dist',
      'dist-server',
      'node_modules',
      'data',
      'server/db/migrations',
      'server/db/pg/migrations',
      'test-results',
      'playwright-report',
      // The journeys' servers' data and client copies (e2e/env.ts).
      '.tmp',
    ],
  },
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
  {
    // A function of the device's store and its replication fits on a screen (house style; decision 132).
    files: ['src/db/**/*.ts'],
    ignores: ['src/db/**/*.test.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    // The server's data layer is asynchronous (decision 157): a write not awaited, or a promise where a value or a
    // plain callback belongs, runs out of order or never, and only the types can tell.
    files: ['server/**/*.ts', 'bench/**/*.ts', 'src/db/chaos/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  boundary('schema', ['server', 'src', 'sw']),
  // Tests, and the sync chaos test's harness (src/db/chaos/), drive the real server.
  { ...boundary('src', ['server', 'sw']), ignores: ['src/**/*.test.ts', 'src/db/chaos/**'] },
  boundary('server', ['src', 'sw']),
  boundary('sw', ['server', 'src']),
  ...featureFolders.flatMap(featureBoundary),
  ...sharedBoundary('src/lib'),
  ...sharedBoundary('src/components'),
  {
    // A journey goes offline one documented way: the kit's fixtures or helpers (docs/testing-offline.md, decision 118).
    files: ['e2e/**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='setOffline']",
          message: 'Go offline with the Wi-Fi of e2e/fixtures.ts (wifi.off): setOffline alone lets requests through.',
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(newContext|launchPersistentContext)$/] Property[key.name='offline']",
          message: 'Open the context with the wifiContext fixture or openInstalledApp, then wifi.off it.',
        },
        {
          selector: "CallExpression[callee.property.name='newContext'] Property[key.name='proxy']",
          message: 'A device behind the Wi-Fi is the wifiContext fixture: it closes its context and checks its hosts.',
        },
        {
          selector: "CallExpression[callee.name='startWifi']",
          message: 'Take the wifi, wifiContext and wifiPage fixtures of e2e/fixtures.ts: they close what they start.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/support/offline', '**/support/wifi'],
              importNames: ['startWifi'],
              message: 'Take the wifi, wifiContext and wifiPage fixtures of e2e/fixtures.ts instead.',
            },
          ],
        },
      ],
    },
  },
  {
    // The app takes the rules of posts and chat and the sync protocol's names from zod-free modules, and loads the
    // alerts and push schemas where it uses them: building every schema of these modules with the feed cost a slow
    // phone's first screen time for nothing (decision 106). The same holds for the account, role, count, upload and
    // suggestion schemas, so that neither the app's first script nor the feed's code loads zod at all (decision 113).
    // src/db/rx-schemas.ts derives the RxDB schemas from the wire documents' zod schemas; the build replaces it by
    // its result as data (decision 133), so the app still loads none of them.
    files: ['src/**/*.{ts,tsx}', 'sw/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'sw/**/*.test.ts', 'src/db/chaos/**', 'src/db/rx-schemas.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/schema/alerts',
                '**/schema/auth',
                '**/schema/chat',
                '**/schema/common',
                '**/schema/kept',
                '**/schema/posts',
                '**/schema/push',
                '**/schema/roles',
                '**/schema/suggestions',
                '**/schema/sync',
                '**/schema/two-factor',
                '**/schema/uploads',
              ],
              allowTypeImports: true,
              message:
                'Only types from here: values from the zod-free rules modules, schemas through import() where used.',
            },
          ],
        },
      ],
    },
  },
);
