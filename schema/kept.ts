import { z } from 'zod';

export * from './kept-rules';

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
