import { describe, expect, it } from 'vitest';
import { PASSWORD_RULES, RegisterBodySchema, ResetPasswordFormSchema } from './auth';

describe('the password rules of registration and reset', () => {
  it('checks the five items of the live checklist', () => {
    const results = (p: string) => PASSWORD_RULES.map((r) => r.test(p));
    expect(results('abc')).toEqual([false, false, true, false, false]);
    expect(results('Abcdefg1!')).toEqual([true, true, true, true, true]);
  });

  it('defaults the registration role to staff and lower-cases the e-mail', () => {
    const parsed = RegisterBodySchema.parse({
      email: 'Someone@Care.Example',
      password: 'Abcdefg1!',
      confirmPassword: 'Abcdefg1!',
      firstName: 'A',
      lastName: 'B',
    });
    expect(parsed.role).toBe('staff');
    expect(parsed.email).toBe('someone@care.example');
  });

  it('needs no special character on the reset screen, but a matching confirmation', () => {
    expect(ResetPasswordFormSchema.safeParse({ password: 'Abcdefg1', confirmPassword: 'Abcdefg1' }).success).toBe(true);
    const mismatch = ResetPasswordFormSchema.safeParse({ password: 'Abcdefg1', confirmPassword: 'Abcdefg2' });
    expect(mismatch.error?.issues[0]).toMatchObject({ message: "Passwords don't match", path: ['confirmPassword'] });
  });
});
