/**
 * The versions of rxdb and dexie the patches of this folder were written for and checked against (README.md). A
 * test fails when the installed ones differ, so an upgrade re-checks each patch before it ships.
 */
export const PATCHED_FOR = { rxdb: '17.6.0', dexie: '4.4.2' } as const;
