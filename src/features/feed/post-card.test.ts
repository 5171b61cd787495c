import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CurrentUser } from '../../../schema/auth';
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

const people: Record<string, { firstName: string; lastName: string; role: CurrentUser['role'] }> = {
  'user-2': { firstName: 'Sam', lastName: 'Staff', role: 'staff' },
  admin: { firstName: 'Ada', lastName: 'Admin', role: 'admin' },
};

const authors: AuthorLookup = (id) => {
  const person = id ? people[id] : undefined;
  return person
    ? { id, ...person, profileImageUrl: null, name: `${person.firstName} ${person.lastName}` }
    : DELETED_AUTHOR_VIEW;
};

const card = (editedBy: string | null) =>
  renderToStaticMarkup(
    createElement(PostCard, { db: null, post: storedPost({ id: 'p1', editedBy }), user: viewer, authors }),
  );

describe('the post card', () => {
  it('says who edited a post when it was not its author', () => {
    const html = card('admin');
    expect(html).toContain('Sam Staff');
    expect(html).toContain('<span class="post-edited">Edited by Ada Admin</span>');
  });

  it('shows only its author when no one else edited it, as before', () => {
    const html = card(null);
    expect(html).toContain('Sam Staff');
    expect(html).not.toContain('Edited by');
  });
});
