import type { Plugin } from 'vite';

/** The module of rxdb's build that holds `sortObject`, and the comparison it orders keys with. */
const FILE = /rxdb\/dist\/esm\/plugins\/utils\/utils-object\.js$/;
const COMPARISON = 'a.localeCompare(b)';
/** How many times rxdb's `sortObject` compares with COMPARISON: once for array items, once for keys. */
export const KEY_ORDER_COMPARISONS = 2;

/** rxdb's utils-object module with its keys ordered by UTF-16 code unit; throws when its comparisons changed. */
export function withoutCollator(code: string): string {
  const found = code.split(COMPARISON).length - 1;
  if (found !== KEY_ORDER_COMPARISONS) {
    throw new Error(
      `rxdb's sortObject changed: expected ${KEY_ORDER_COMPARISONS} localeCompare calls, found ${found}` +
        ' (src/db/storage-patches/README.md)',
    );
  }
  return code.replaceAll(COMPARISON, '(a < b ? -1 : a > b ? 1 : 0)');
}

/**
 * RxDB orders the keys of every schema and query with `localeCompare` (rxdb's `sortObject`). The first call builds
 * the browser's collator: 12-36 ms in one task on this machine, in the middle of a first sign-in's feed, for an
 * order that only has to be the same each time. The build orders them by UTF-16 code unit instead (decision 109).
 * A schema's hash may then differ from one stored by an earlier build; RxDB accepts a stored schema whose hash
 * differs when its content is the same (it does so for devices in different locales). The build fails if RxDB's
 * code no longer has the two comparisons, so an upgrade cannot drop this silently.
 */
export function rxdbKeyOrderWithoutCollator(): Plugin {
  return {
    name: 'staff-portal-rxdb-key-order',
    apply: 'build',
    transform(code, id) {
      if (!FILE.test(id)) return null;
      return { code: withoutCollator(code), map: null };
    },
  };
}
