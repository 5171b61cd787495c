import { describe, expect, it } from 'vitest';
import { canDeleteComment, canEditPost, canManageUsers, canSeeAdminLink } from './permissions';
import { roleLabel, toRole } from './roles';

describe('roles', () => {
  it('maps every older spelling of a role to a stored role', () => {
    expect(toRole('master_admin')).toBe('system_admin');
    expect(toRole('system_administrator')).toBe('system_admin');
    expect(toRole('administrator')).toBe('admin');
    expect(toRole('admin')).toBe('admin');
    expect(toRole('staff')).toBe('staff');
  });

  it('labels roles as the screens name them', () => {
    expect(roleLabel('staff')).toBe('Staff Member');
    expect(roleLabel('admin')).toBe('Administrator');
    expect(roleLabel('system_admin')).toBe('System Administrator');
  });

  it('gives the admin link to admins and system admins, and user management to system admins only', () => {
    expect([canSeeAdminLink({ role: 'staff' }), canSeeAdminLink({ role: 'admin' })]).toEqual([false, true]);
    expect([canManageUsers({ role: 'admin' }), canManageUsers({ role: 'system_admin' })]).toEqual([false, true]);
  });

  it('lets authors and admins edit posts, and authors and system admins delete comments', () => {
    const staff = { id: 'a', role: 'staff' as const };
    expect(canEditPost(staff, { authorId: 'a' })).toBe(true);
    expect(canEditPost(staff, { authorId: 'b' })).toBe(false);
    expect(canEditPost({ id: 'c', role: 'admin' }, { authorId: 'b' })).toBe(true);
    expect(canDeleteComment({ id: 'c', role: 'admin' }, { authorId: 'b' })).toBe(false);
    expect(canDeleteComment({ id: 'c', role: 'system_admin' }, { authorId: 'b' })).toBe(true);
  });
});
