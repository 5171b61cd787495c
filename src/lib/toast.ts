import { atom } from 'jotai';
import { LIMITS } from '../../schema/constants';
import { appStore } from './store';

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  /** A second line, such as the server's own message under "Failed to update user". */
  detail?: string;
  variant?: ToastVariant;
}

export interface ToastItem extends ToastInput {
  id: number;
  open: boolean;
}

/** docs/behaviour.md, "Messages and formats": a dismissed toast is removed from the list 1,000,000 ms later. */
const TOAST_REMOVE_DELAY_MS = 1_000_000;

export const toastsAtom = atom<ToastItem[]>([]);

let nextId = 1;

/**
 * Shows a toast from anywhere; only one is visible at a time (docs/behaviour.md, "Messages and formats"), the newest
 * wins.
 */
export function toast(input: ToastInput): number {
  const id = nextId;
  nextId += 1;
  const item: ToastItem = { variant: 'default', ...input, id, open: true };
  appStore.set(toastsAtom, (toasts) => [item, ...toasts].slice(0, LIMITS.toastLimit));
  return id;
}

/** Closes a toast; it leaves the list later so its closing animation can run. */
export function dismissToast(id: number): void {
  appStore.set(toastsAtom, (toasts) => toasts.map((t) => (t.id === id ? { ...t, open: false } : t)));
  setTimeout(() => {
    appStore.set(toastsAtom, (toasts) => toasts.filter((t) => t.id !== id));
  }, TOAST_REMOVE_DELAY_MS);
}
