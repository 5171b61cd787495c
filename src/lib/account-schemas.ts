/**
 * The account screens' zod schemas, loaded when a screen first needs them. The screens are part of the app's first
 * script, which builds no zod schema and does not load zod at all (decision 113): a signed-in first visit does not
 * need them.
 */
const accountSchemas = () => import('../../schema/auth');

export const loginSchema = () => accountSchemas().then((module) => module.LoginBodySchema);
export const registerSchema = () => accountSchemas().then((module) => module.RegisterBodySchema);
export const forgotPasswordSchema = () => accountSchemas().then((module) => module.ForgotPasswordBodySchema);
export const resetPasswordFormSchema = () => accountSchemas().then((module) => module.ResetPasswordFormSchema);
export const setupSchema = () => accountSchemas().then((module) => module.SetupBodySchema);
export const resetLinkAnswerSchema = () => accountSchemas().then((module) => module.ResetLinkAnswerSchema);
