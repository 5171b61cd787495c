import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KEY_ORDER_COMPARISONS, rxdbKeyOrderWithoutCollator, withoutCollator } from './rxdb-key-order';

const utilsObject = new URL('../../../node_modules/rxdb/dist/esm/plugins/utils/utils-object.js', import.meta.url);

describe("the build's rxdb key order", () => {
  it("finds the installed rxdb's comparisons and leaves no localeCompare in sortObject", () => {
    const code = fs.readFileSync(utilsObject, 'utf8');
    expect(code.split('a.localeCompare(b)').length - 1).toBe(KEY_ORDER_COMPARISONS);
    expect(withoutCollator(code)).not.toContain('localeCompare');
  });

  it('fails when rxdb compares another way, naming the README', () => {
    expect(() => withoutCollator('keys.sort((a, b) => a.localeCompare(b))')).toThrow(
      /expected 2 localeCompare calls, found 1 \(src\/db\/storage-patches\/README\.md\)/,
    );
  });

  it("transforms only rxdb's utils-object module", () => {
    // Vite types a hook as a function or an object with a handler; this plugin's is a plain function.
    const transform = rxdbKeyOrderWithoutCollator().transform as (code: string, id: string) => unknown;
    expect(transform('a.localeCompare(b)', '/x/node_modules/rxdb/dist/esm/plugins/utils/utils-string.js')).toBeNull();
  });
});
