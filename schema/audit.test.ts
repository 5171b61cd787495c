import { describe, expect, it } from 'vitest';
import { auditActionLabel, AuditQuerySchema, auditSearchParams } from './audit';

describe('auditActionLabel', () => {
  it('names known actions, including the residents ones, and shows others as written', () => {
    expect(auditActionLabel('auth.login')).toBe('Signed in');
    expect(auditActionLabel('resident.view')).toBe('Resident profile viewed');
    expect(auditActionLabel('something.new')).toBe('something.new');
  });
});

describe('auditSearchParams', () => {
  it('leaves out empty filters and trims the rest', () => {
    expect(auditSearchParams({ actor: ' ann ', action: '', from: '2026-01-01T00:00:00.000Z' }).toString()).toBe(
      'actor=ann&from=2026-01-01T00%3A00%3A00.000Z',
    );
  });
});

describe('AuditQuerySchema', () => {
  it('defaults the page to 50 and accepts instants with an offset', () => {
    expect(AuditQuerySchema.parse({ from: '2026-01-01T00:00:00+01:00' })).toMatchObject({ limit: 50 });
  });

  it('refuses a range that ends before it starts', () => {
    expect(AuditQuerySchema.safeParse({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }).success).toBe(
      false,
    );
  });
});
