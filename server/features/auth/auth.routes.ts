import { Hono } from 'hono';
import { z } from 'zod';
import {
  ForgotPasswordBodySchema,
  LoginBodySchema,
  RegisterBodySchema,
  ResetPasswordBodySchema,
  SetupBodySchema,
} from '../../../schema/auth';
import { PROFILE_PICTURE_FIELD, PROFILE_PICTURE_MESSAGES } from '../../../schema/profile-picture';
import type { AppEnv } from '../../lib/context';
import { badRequest } from '../../lib/errors';
import { validate } from '../../lib/http';
import { FORM_LIMITS, readMultipart } from '../../lib/multipart';
import { changeProfilePicture } from '../users/users.service';
import { clearSessionCookie, currentUserOrNull, requestMeta, requireUser, setSessionCookie } from './auth.middleware';
import {
  checkResetToken,
  checkSetupLink,
  completeSetup,
  endSession,
  legacyLogin,
  login,
  register,
  requestPasswordReset,
  resetPassword,
} from './auth.service';
import { passwordResetGate, passwordSignInGate, registrationGate } from './oidc.routes';
import { setSignInCookie } from './two-factor.routes';

const TokenQuerySchema = z.object({ token: z.string().min(1).max(200) });

/** Sign-in, registration, password reset, the profile picture and the first-start setup (docs/api-auth-admin.md). */
export const authRoutes = new Hono<AppEnv>()
  .get('/auth/user', requireUser, (c) => c.json(c.var.user))
  .post('/auth/login', validate('json', LoginBodySchema), passwordSignInGate, async (c) => {
    const outcome = await login(c.var.deps, c.req.valid('json'), requestMeta(c));
    if ('ticket' in outcome) {
      setSignInCookie(c, outcome.ticket);
      return c.json({ secondFactor: { methods: outcome.methods } });
    }
    setSessionCookie(c, outcome.token);
    return c.json(outcome.user);
  })
  .post('/auth/logout', async (c) => {
    const user = await currentUserOrNull(c);
    if (user) await endSession(c.var.deps, c.var.sessionHash, user, requestMeta(c));
    clearSessionCookie(c);
    // The browser's HTTP cache outlives the session; storage is left, as kept work lives there (decisions 114, 127).
    return c.body(null, 204, { 'Clear-Site-Data': '"cache"' });
  })
  .post('/auth/heartbeat', requireUser, (c) => c.body(null, 204))
  .post('/auth/profile-picture', requireUser, async (c) => {
    const files = (await readMultipart(c, FORM_LIMITS.profilePicture))[PROFILE_PICTURE_FIELD] ?? [];
    const file =
      files.length === 1 && files[0] instanceof File ? files[0] : badRequest(PROFILE_PICTURE_MESSAGES.missing);
    return c.json(await changeProfilePicture(c.var.deps, c.var.user, file, requestMeta(c)));
  })
  .post('/auth/register', validate('json', RegisterBodySchema), registrationGate, async (c) =>
    c.json(await register(c.var.deps, c.req.valid('json'), requestMeta(c)), 202),
  )
  .post('/auth/forgot-password', validate('json', ForgotPasswordBodySchema), passwordSignInGate, async (c) =>
    c.json(await requestPasswordReset(c.var.deps, c.req.valid('json'), requestMeta(c)), 202),
  )
  .get('/auth/reset-password/validate', validate('query', TokenQuerySchema), async (c) =>
    c.json(await checkResetToken(c.var.deps, c.req.valid('query').token)),
  )
  .post('/auth/reset-password', validate('json', ResetPasswordBodySchema), passwordResetGate, async (c) =>
    c.json(await resetPassword(c.var.deps, c.req.valid('json'), requestMeta(c))),
  )
  .post('/legacy-login', () => legacyLogin())
  .get('/setup/validate', validate('query', TokenQuerySchema), async (c) =>
    c.json(await checkSetupLink(c.var.deps, c.req.valid('query').token)),
  )
  .post('/setup', validate('json', SetupBodySchema), async (c) => {
    const { token, user } = await completeSetup(c.var.deps, c.req.valid('json'), requestMeta(c));
    setSessionCookie(c, token);
    return c.json(user, 201);
  });
