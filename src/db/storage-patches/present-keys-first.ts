import type { DBCore, DBCoreGetManyRequest, DBCoreTable, Dexie, Middleware } from 'dexie';

/**
 * From how many keys a `getMany` asks IndexedDB which of them exist before reading any: below it, one `get` per
 * key is as cheap as the key listing.
 */
export const PROBE_FROM_KEYS = 20;

/** DBCore's range type for a bound range (Dexie's `DBCoreRangeType.Range`; a const enum, so not importable). */
const RANGE = 2;

/**
 * A `getMany` that first lists the primary keys present between the smallest and the largest key asked for (one
 * `getAllKeys` request) and then reads only those documents. RxDB's replication reads every pulled document four
 * times before and while storing it (the local copy and the replication meta, each before and inside its bulk
 * write); during a first sync none of them exists yet, and each `get` still costs the browser's main thread about
 * as much as the `put` that follows (decision 80). The answer is the same, read in the same transaction.
 */
export function getManyPresentOnly(table: DBCoreTable, req: DBCoreGetManyRequest): Promise<unknown[]> {
  const { keys } = req;
  if (keys.length < PROBE_FROM_KEYS || !keys.every((key) => typeof key === 'string')) return table.getMany(req);
  // IndexedDB orders strings by UTF-16 code units, as JavaScript's < does.
  let lower = keys[0] as string;
  let upper = lower;
  for (const key of keys as string[]) {
    if (key < lower) lower = key;
    if (key > upper) upper = key;
  }
  return table
    .query({
      trans: req.trans,
      values: false,
      query: { index: table.schema.primaryKey, range: { type: RANGE, lower, upper } },
    })
    .then(async ({ result }) => {
      const present = new Set(result as string[]);
      const wanted = (keys as string[]).filter((key) => present.has(key));
      const found = new Map<string, unknown>();
      if (wanted.length > 0) {
        const docs = await table.getMany({ ...req, keys: wanted });
        wanted.forEach((key, i) => found.set(key, docs[i]));
      }
      return (keys as string[]).map((key) => found.get(key));
    });
}

const middleware: Middleware<DBCore> = {
  stack: 'dbcore',
  name: 'presentKeysFirst',
  // Below Dexie's own middlewares (its transaction cache is level -1), so they see the whole answer.
  level: -2,
  create: (down) => ({
    ...down,
    table: (name) => {
      const table = down.table(name);
      return { ...table, getMany: (req) => getManyPresentOnly(table, req) };
    },
  }),
};

/** Installs the middleware on one of storage-dexie's databases (its `onCreate` setting). */
export function usePresentKeysFirst(db: Dexie): void {
  db.use(middleware);
}
