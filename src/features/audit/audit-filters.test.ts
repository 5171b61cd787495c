import { describe, expect, it } from 'vitest';
import { auditQueryString, NO_AUDIT_FILTERS } from './audit-filters';

describe('auditQueryString', () => {
  it('is empty without filters', () => {
    expect(auditQueryString(NO_AUDIT_FILTERS)).toBe('');
  });

  it('sends the chosen days as local midnights, the end day included', () => {
    const params = new URLSearchParams(
      auditQueryString({ person: ' ann ', action: 'auth.login', fromDay: '2026-03-01', toDay: '2026-03-31' }, 'abc'),
    );
    expect(params.get('actor')).toBe('ann');
    expect(params.get('action')).toBe('auth.login');
    expect(params.get('from')).toBe(new Date(2026, 2, 1).toISOString());
    expect(params.get('to')).toBe(new Date(2026, 3, 1).toISOString());
    expect(params.get('cursor')).toBe('abc');
  });

  it('leaves out a malformed day', () => {
    expect(auditQueryString({ ...NO_AUDIT_FILTERS, fromDay: '01/03/2026' })).toBe('');
  });
});
