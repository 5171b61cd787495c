import { runnerImport, type Plugin } from 'vite';
import type { RX_SCHEMAS } from './rx-schemas';

const MODULE = /\/src\/db\/rx-schemas\.ts$/;

/** The code that stands for src/db/rx-schemas.ts in the build: its schemas as data, with no import. */
export function rxSchemasModule(schemas: typeof RX_SCHEMAS): string {
  return `export const RX_SCHEMAS = ${JSON.stringify(schemas)};\n`;
}

/**
 * Replaces src/db/rx-schemas.ts by the schemas it derives from zod, computed at build time, so the app never loads
 * zod nor builds the wire documents' schemas to get them (decisions 106, 113 and 133). The module runs in Vite's
 * module runner, not in the config's own bundle, which Vite's native config loader could not read. The build fails
 * if the module was not there to replace, so renaming it cannot bring zod back into the app unnoticed.
 */
export function rxSchemasAsData(): Plugin {
  let replaced = false;
  return {
    name: 'staff-portal-rx-schemas-as-data',
    apply: 'build',
    buildStart() {
      replaced = false;
    },
    async transform(_code, id) {
      const file = id.split('?')[0];
      if (!MODULE.test(file)) return null;
      const { module } = await runnerImport<{ RX_SCHEMAS: typeof RX_SCHEMAS }>(file, {
        configFile: false,
        logLevel: 'silent',
      });
      replaced = true;
      return { code: rxSchemasModule(module.RX_SCHEMAS), map: null };
    },
    buildEnd(error) {
      if (!error && !replaced) this.error('rx-schemas: src/db/rx-schemas.ts was not in the build to replace');
    },
  };
}
