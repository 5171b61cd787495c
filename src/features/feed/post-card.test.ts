import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CurrentUser } from '../../../schema/auth';
import type { AccountType } from '../../../schema/role-rules';
import { storedPost } from '../../db/test-fixtures';
import { PostCard } from './post-card';
import { DELETED_AUTHOR_VIEW, type AuthorLookup } from '../../lib/use-authors';

const viewer: CurrentUser = {
  id: 'viewer',
  email: 'viewer@test.example',
  firstName: 'Vi',
  lastName: 'Ewer',
  role: 'staff',
  isAdmin: false,
  isMasterAdmin: false,
  isActive: true,
  profileImageUrl: null,
};

const people: Record<string, { firstName: string; lastName: string; role: CurrentUser['role']; type: AccountType }> = {
  'user-2': { firstName: 'Sam', lastName: 'Staff', role: 'staff', type: 'employee' },
  admin: { firstName: 'Ada', lastName: 'Admin', role: 'admin', type: 'employee' },
  agency: { firstName: 'Agnes', lastName: 'Agency', role: 'staff', type: 'agency' },
};

const authors: AuthorLookup = (id) => {
  const person = id ? people[id] : undefined;
  return person
    ? { id, ...person, profileImageUrl: null, name: `${person.firstName} ${person.lastName}` }
    : DELETED_AUTHOR_VIEW;
};

const card = (editedBy: string | null, authorId = 'user-2') =>
  renderToStaticMarkup(
    createElement(PostCard, { db: null, post: storedPost({ id: 'p1', editedBy, authorId }), user: viewer, authors }),
  );

describe('the post card', () => {
  it('says who edited a post when it was not its author', () => {
    const html = card('admin');
    expect(html).toContain('Sam Staff');
    expect(html).toContain('<span class="post-edited">Edited by Ada Admin</span>');
  });

  it('marks a post by agency staff with a small Agency badge beside the name, and an employee with none', () => {
    expect(card(null, 'agency')).toMatch(
      /Agnes Agency<span class="badge badge-info account-type-badge"[^>]*>Agency<\/span>/,
    );
    expect(card(null)).not.toContain('account-type-badge');
  });

  it('shows only its author when no one else edited it, as before', () => {
    const html = card(null);
    expect(html).toContain('Sam Staff');
    expect(html).not.toContain('Edited by');
  });
});
