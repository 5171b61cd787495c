import { z } from 'zod';

export * from './sso-rules';

/** GET /api/auth/sso/callback: what the provider sends back; the code exchange checks the rest (decision 149). */
export const SsoCallbackQuerySchema = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(500).optional(),
  error: z.string().max(200).optional(),
  iss: z.string().max(500).optional(),
});
export type SsoCallbackQuery = z.infer<typeof SsoCallbackQuerySchema>;
