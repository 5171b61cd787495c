/**
 * Work kept on a device after its session ended (docs/sync.md, "Kept work"; decision 114): the unsent items are
 * sealed with a random key, and that key is wrapped with the server's public key under a label naming the user and
 * the time of sealing. Only the server can unwrap it, and only for that user's session, within KEPT_DAYS.
 */
export const KEPT_DAYS = 14;
export const KEPT_MAX_AGE_MS = KEPT_DAYS * 24 * 60 * 60 * 1000;
/** How far ahead of the server's clock a device's sealing time may be (clocks drift). */
export const KEPT_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

/** The label the wrapped key is bound to: a key sealed for one user never unwraps for another. */
export function keptLabel(userId: string, sealedAt: number): string {
  return `staff-portal kept work v1 ${userId} ${sealedAt}`;
}

export const KEPT_MESSAGES = {
  expired: `Work kept on a device is removed after ${KEPT_DAYS} days`,
  notYours: 'This work was kept for someone else, or with a key this server does not hold',
} as const;
