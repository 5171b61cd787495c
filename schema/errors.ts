import { z } from 'zod';

/** Stable error ids every non-2xx answer carries (house style: Errors). */
export const ERROR_CODES = [
  'bad_request',
  'validation_failed',
  'unauthenticated',
  /** A 401 for a session the server ended because the account's access end came (decision 151). */
  'access_ended',
  'forbidden',
  /** An admin's session that must set up a second factor first (decision 148). */
  'two_factor_setup_required',
  'not_found',
  'conflict',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal',
  /** A 503 while the database is out of reach (a failover): the device keeps its change and sends it again. */
  'unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const UNAVAILABLE_MESSAGE = 'The service is briefly unavailable. Please try again in a moment.';

export const ErrorBodySchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
