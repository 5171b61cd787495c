// The app's CSP allows no eval: without `jitless`, zod's first parse probes `new Function` and the browser reports a
// CSP violation (harmless, but noise in the console and in Lighthouse's best practices). zod reads its settings from
// this global, so they are set here without loading zod: the app's first script does not need it (decision 113).
// zod-config.test.ts checks that zod still takes them from here.
const holder = globalThis as { __zod_globalConfig?: Record<string, unknown> };
holder.__zod_globalConfig = Object.assign(holder.__zod_globalConfig ?? {}, { jitless: true });

export {};
