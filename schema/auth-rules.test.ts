import { describe, expect, it } from 'vitest';
import { CurrentUserSchema, PublicConfigSchema } from './auth';
import { isCurrentUser, isPublicConfig } from './auth-rules';

const user = {
  id: 'u1',
  email: 'ann@example.org',
  firstName: 'Ann',
  lastName: 'Lee',
  role: 'staff',
  isAdmin: false,
  isMasterAdmin: false,
  isActive: true,
  profileImageUrl: null,
};
const config = {
  orgName: 'Care',
  supportEmail: 'help@example.org',
  handbookUrl: '',
  registration: 'approval',
  houses: ['Giles House'],
  needsSetup: false,
};

/** The sample itself, each field removed, and each field given a value of the wrong kind. */
function variants(sample: Record<string, unknown>): unknown[] {
  const wrong: unknown[] = [undefined, null, 1, 'x', true, [], {}, ['x'], [1]];
  const out: unknown[] = [sample, null, 'text', [], 3];
  for (const key of Object.keys(sample)) {
    const { [key]: _dropped, ...rest } = sample;
    out.push(rest);
    for (const value of wrong) out.push({ ...sample, [key]: value });
  }
  return out;
}

describe('the zod-free checks the app reads its first answers with (decision 113)', () => {
  it('isCurrentUser accepts exactly what CurrentUserSchema accepts', () => {
    const samples = [...variants(user), { ...user, role: 'system_admin', profileImageUrl: '/api/uploads/p1' }];
    for (const sample of samples)
      expect(isCurrentUser(sample), JSON.stringify(sample)).toBe(CurrentUserSchema.safeParse(sample).success);
    expect(samples.filter(isCurrentUser).length).toBeGreaterThan(2);
  });

  it('isPublicConfig accepts exactly what PublicConfigSchema accepts', () => {
    const samples = [
      ...variants(config),
      { ...config, registration: 'closed', houses: [] },
      ...variants({ ...config, sso: { label: 'Microsoft' }, passwordSignIn: false }),
      { ...config, sso: { label: 1 } },
      { ...config, sso: null },
    ];
    for (const sample of samples)
      expect(isPublicConfig(sample), JSON.stringify(sample)).toBe(PublicConfigSchema.safeParse(sample).success);
    expect(samples.filter(isPublicConfig).length).toBeGreaterThan(2);
  });
});
