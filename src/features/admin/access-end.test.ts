import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AdminUser } from '../../../schema/admin';
import { accessEndFor, accessEndText, editedAccessEnd, fromLocalInput, toLocalInput } from './access-end';
import { AddStaffForm } from './add-staff-form';
import { usersOfType } from './user-list';
import { UserRow } from './user-row';

const HOUR = 3_600_000;
const now = Date.parse('2026-11-26T10:00:00Z');
const at = (hours: number) => new Date(now + hours * HOUR).toISOString();

const member = (overrides: Partial<AdminUser> = {}): AdminUser => ({
  id: 'u1',
  email: 'agnes@test.example',
  firstName: 'Agnes',
  lastName: 'Agency',
  role: 'staff',
  isAdmin: false,
  isMasterAdmin: false,
  isActive: true,
  profileImageUrl: null,
  pendingApproval: false,
  requestedRole: null,
  invitePending: false,
  houses: [],
  type: 'employee',
  accessEndsAt: null,
  createdAt: '2026-11-20T09:00:00.000Z',
  lastLoginAt: null,
  ...overrides,
});

const row = (user: AdminUser) =>
  renderToStaticMarkup(createElement(UserRow, { user, isSelf: false, onChanged: () => {}, onDeleted: () => {} }));

describe('the access end on the admin page', () => {
  it('counts days from 48 hours on, hours below, and says when it has ended', () => {
    expect(accessEndText(at(2 * 24 + 5), now)).toBe('Access ends in 2 days');
    expect(accessEndText(at(6 * 24), now)).toBe('Access ends in 6 days');
    expect(accessEndText(at(47.5), now)).toBe('Access ends in 48 hours');
    expect(accessEndText(at(5), now)).toBe('Access ends in 5 hours');
    expect(accessEndText(at(0.2), now)).toBe('Access ends in 1 hour');
    expect(accessEndText(at(-1), now)).toBe('Access ended');
    expect(accessEndText(null, now)).toBeNull();
  });

  it('turns the date and time field into the ISO time the API takes, and back', () => {
    const iso = fromLocalInput('2026-12-01T18:00');
    expect(iso).toBe(new Date('2026-12-01T18:00').toISOString());
    expect(toLocalInput(iso)).toBe('2026-12-01T18:00');
    expect(fromLocalInput('')).toBeNull();
    expect(accessEndFor('employee', '2026-12-01T18:00')).toBeNull();
    expect(accessEndFor('agency', '')).toBeNull();
  });

  it('sends the end in an edit only when the type or the end changed', () => {
    const agency = member({ type: 'agency', accessEndsAt: at(-3) });
    const local = toLocalInput(agency.accessEndsAt);
    expect(editedAccessEnd(agency, 'agency', local)).toEqual({});
    expect(editedAccessEnd(agency, 'agency', toLocalInput(at(48)))).toEqual({
      accessEndsAt: fromLocalInput(toLocalInput(at(48))),
    });
    expect(editedAccessEnd(agency, 'employee', local)).toEqual({ accessEndsAt: null });
  });
});

describe('the staff list', () => {
  it('shows an agency worker with the Agency badge and when the access ends', () => {
    const html = row(member({ type: 'agency', accessEndsAt: new Date(Date.now() + 50 * HOUR).toISOString() }));
    expect(html).toContain('>Agency</span>');
    expect(html).toContain('Access ends in 2 days');
  });

  it('shows an ended bank worker as ended, and an employee with neither', () => {
    expect(row(member({ type: 'bank', accessEndsAt: new Date(Date.now() - HOUR).toISOString() }))).toContain(
      'Access ended',
    );
    const employee = row(member());
    expect(employee).not.toContain('Access end');
    expect(employee).not.toContain('account-type-badge');
  });

  it('filters the accounts by type', () => {
    const users = [member({ id: 'e' }), member({ id: 'b', type: 'bank' }), member({ id: 'a', type: 'agency' })];
    expect(usersOfType(users, 'any').map((u) => u.id)).toEqual(['e', 'b', 'a']);
    expect(usersOfType(users, 'agency').map((u) => u.id)).toEqual(['a']);
    expect(usersOfType(users, 'employee').map((u) => u.id)).toEqual(['e']);
  });
});

describe('the Add New Staff Member form', () => {
  it('asks for the type, Employee first, with no access end for an employee', () => {
    const html = renderToStaticMarkup(createElement(AddStaffForm, { onCreated: () => {} }));
    expect(html).toContain('>Type</label>');
    expect(html).toContain('Employee');
    expect(html).not.toContain('Access ends');
  });
});
