import { z } from 'zod';

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

const base64 = z
  .string()
  .max(2048)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'Must be base64');

/** GET /api/kept/key: the server's public key (SPKI, base64) that devices wrap their sealing keys with. */
export const KeptKeySchema = z.object({ publicKey: base64.max(1024) });
export type KeptKey = z.infer<typeof KeptKeySchema>;

/** POST /api/kept/unseal: a wrapped key, and when it was sealed; the user is the session's. */
export const UnsealKeptBodySchema = z.object({
  sealedAt: z.number().int().nonnegative(),
  wrappedKey: base64,
});
export type UnsealKeptBody = z.infer<typeof UnsealKeptBodySchema>;

/** The sealing key, raw AES-256 (base64). */
export const UnsealedKeySchema = z.object({ key: base64 });
export type UnsealedKey = z.infer<typeof UnsealedKeySchema>;

export const KEPT_MESSAGES = {
  expired: `Work kept on a device is removed after ${KEPT_DAYS} days`,
  notYours: 'This work was kept for someone else, or with a key this server does not hold',
} as const;
