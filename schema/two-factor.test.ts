import { describe, expect, it } from 'vitest';
import { isSecondFactorNeeded, SecondFactorBodySchema } from './two-factor';

describe('isSecondFactorNeeded', () => {
  it('tells the second step from a signed-in user, without zod', () => {
    expect(isSecondFactorNeeded({ secondFactor: { methods: ['totp', 'recovery_code'] } })).toBe(true);
    expect(isSecondFactorNeeded({ secondFactor: { methods: ['passkey'] } })).toBe(true);
    expect(isSecondFactorNeeded({ id: 'u1', email: 'a@b.example', role: 'admin' })).toBe(false);
    expect(isSecondFactorNeeded({ secondFactor: { methods: ['sms'] } })).toBe(false);
    expect(isSecondFactorNeeded({ secondFactor: null })).toBe(false);
    expect(isSecondFactorNeeded(null)).toBe(false);
  });
});

describe('SecondFactorBodySchema', () => {
  it('takes a code with spaces, or a recovery code typed in capitals with a dash', () => {
    expect(SecondFactorBodySchema.parse({ code: '123 456' })).toEqual({ code: '123456' });
    expect(SecondFactorBodySchema.parse({ recoveryCode: 'ABCDE-FGH23' })).toEqual({ recoveryCode: 'abcdefgh23' });
  });

  it('refuses a code that is not six digits, both kinds at once, and neither', () => {
    expect(SecondFactorBodySchema.safeParse({ code: '12345' }).success).toBe(false);
    expect(SecondFactorBodySchema.safeParse({ code: '123456', recoveryCode: 'abcdefgh23' }).success).toBe(false);
    expect(SecondFactorBodySchema.safeParse({}).success).toBe(false);
  });
});
