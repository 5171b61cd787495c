import { atom } from 'jotai';

/**
 * Whether the blocking EMERGENCY ALERT modal is open: a question the app asks unprompted (the push prompt) waits
 * until it is not, so no dialog ever sits over or under the alert (decision 128).
 */
export const alertOpenAtom = atom(false);
