import { useMemo } from 'react';
import { map } from 'rxjs';
import type { ResidentLocal } from '../../db/collections';
import type { LocalStore } from '../../db/local-store-state';
import { useObservable } from '../../lib/use-observable';

const NO_RESIDENTS: ResidentLocal[] = [];

/** Every active resident on this device, by name (reactive: follows the local database, offline too). */
export function useResidents(store: LocalStore | null): { residents: ResidentLocal[]; ready: boolean } {
  const residents$ = useMemo(
    () =>
      store?.db.residents
        .find()
        .$.pipe(
          map((docs) =>
            docs
              .map((doc): ResidentLocal => doc._data)
              .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' })),
          ),
        ) ?? null,
    [store],
  );
  const { value, ready } = useObservable(residents$, NO_RESIDENTS);
  return { residents: value, ready };
}

/** Residents living in a house; all of them when no house is chosen. */
export function residentsInHouse(residents: readonly ResidentLocal[], house: string | null): ResidentLocal[] {
  return house ? residents.filter((resident) => resident.houseTags.includes(house)) : [...residents];
}
