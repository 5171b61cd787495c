import { describe, expect, it } from 'vitest';
import { seedDemo, DEMO_PASSWORD } from './demo';
import { startTestServer } from './test/test-server';

describe('demo data', () => {
  it('makes a dozen staff across the three roles who can sign in, and one registration to approve', async () => {
    const t = await startTestServer();
    try {
      const accounts = await seedDemo(t.db);
      expect(accounts).toHaveLength(12);
      expect(new Set(accounts.map((a) => a.role))).toEqual(new Set(['staff', 'admin', 'system_admin']));
      const res = await t.client().post('/api/auth/login', { email: accounts[3].email, password: DEMO_PASSWORD });
      expect(res.status).toBe(200);
      const pending = t.db.$client.prepare('select count(*) as n from users where pending_approval = 1').get();
      expect(pending).toEqual({ n: 1 });
    } finally {
      await t.close();
    }
  });
});
