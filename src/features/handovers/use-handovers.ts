import { useEffect, useMemo, useState } from 'react';
import { map } from 'rxjs';
import type { DirectoryUserLocal, HandoverLocal } from '../../db/collections';
import type { LocalStore } from '../../db/local-store-state';
import { useObservable } from '../../lib/use-observable';
import { fetchShifts, openedNoteIds, recordHandoverOpening, type ShiftChoice } from './handover-actions';

const NO_USERS: DirectoryUserLocal[] = [];
const NO_NOTES: HandoverLocal[] = [];

/** The staff directory on this device (reactive, offline too): names, houses and who is active. */
export function useDirectory(store: LocalStore | null): { users: DirectoryUserLocal[]; ready: boolean } {
  const users$ = useMemo(
    () => store?.db.users.find().$.pipe(map((docs) => docs.map((doc): DirectoryUserLocal => doc._data))) ?? null,
    [store],
  );
  const { value, ready } = useObservable(users$, NO_USERS);
  return { users: value, ready };
}

/** A house's handover notes on this device, newest first (reactive: follows the local database, offline too). */
export function useHandoverNotes(store: LocalStore | null, house: string | null): HandoverLocal[] {
  const notes$ = useMemo(
    () =>
      store && house
        ? store.db.handovers
            .find({ selector: { house }, sort: [{ createdAt: 'desc' }] })
            .$.pipe(map((docs) => docs.map((doc): HandoverLocal => doc._data)))
        : null,
    [store, house],
  );
  return useObservable(notes$, NO_NOTES).value;
}

/** Shift names, which hold no personal data, kept for the form offline. */
const SHIFTS_KEY = 'sp_handover_shifts';

/** The server's default shifts (SHIFTS), for a device that has never been online on this screen. */
const DEFAULT_CHOICE: ShiftChoice = { shifts: ['Day', 'Evening', 'Night'], currentShift: 'Day' };

function savedChoice(): ShiftChoice {
  try {
    const saved = JSON.parse(localStorage.getItem(SHIFTS_KEY) ?? 'null') as ShiftChoice | null; // written below
    return saved && Array.isArray(saved.shifts) && saved.shifts.length > 0 ? saved : DEFAULT_CHOICE;
  } catch {
    return DEFAULT_CHOICE;
  }
}

/**
 * The provider's shifts and the one under way, for the form: asked of the server when a house is shown, else the
 * last answer kept on the device (the shift then may be the one of that answer; the writer can change it).
 */
export function useShifts(house: string | null): ShiftChoice {
  const [choice, setChoice] = useState<ShiftChoice>(savedChoice);
  useEffect(() => {
    if (!house) return;
    let live = true;
    void fetchShifts(house).then((answer) => {
      if (!live || !answer) return;
      const next = { shifts: answer.shifts, currentShift: answer.currentShift };
      setChoice(next);
      try {
        localStorage.setItem(SHIFTS_KEY, JSON.stringify(next));
      } catch {
        // No storage: only an offline form loses the provider's shift names.
      }
    });
    return () => {
      live = false;
    };
  }, [house]);
  return choice;
}

/**
 * Records that the screen shows these notes of a house (decision 142), offline too: once when they are shown, again
 * when the set shown changes (a note arrives or is sent); the server keeps one audit entry per note in five minutes.
 */
export function useHandoverOpening(
  store: LocalStore | null,
  userId: string,
  house: string | null,
  notes: readonly HandoverLocal[],
): void {
  const shown = house ? openedNoteIds(notes, house, userId).sort().join(' ') : '';
  useEffect(() => {
    if (!store || !house || !shown) return;
    void recordHandoverOpening(store.db, house, shown.split(' ')).catch(() => {
      // The store closed (sign-out) while the screen was on: nothing is left to record in.
    });
  }, [store, house, shown]);
}
