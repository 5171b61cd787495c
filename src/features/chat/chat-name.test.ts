import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CurrentUser } from '../../../schema/auth';
import type { AccountType } from '../../../schema/role-rules';
import type { ConversationLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { DELETED_AUTHOR_VIEW, type AuthorLookup } from '../../lib/use-authors';
import { ChatName } from './chat-name';
import { MembersView } from './members-view';

const me: CurrentUser = {
  id: 'me',
  email: 'me@test.example',
  firstName: 'Mia',
  lastName: 'Me',
  role: 'staff',
  isAdmin: false,
  isMasterAdmin: false,
  isActive: true,
  profileImageUrl: null,
};

const people: Record<string, { firstName: string; lastName: string; type: AccountType }> = {
  me: { firstName: 'Mia', lastName: 'Me', type: 'employee' },
  agnes: { firstName: 'Agnes', lastName: 'Agency', type: 'agency' },
  bert: { firstName: 'Bert', lastName: 'Bank', type: 'bank' },
  emma: { firstName: 'Emma', lastName: 'Employee', type: 'employee' },
};

const authors: AuthorLookup = (id) => {
  const person = id ? people[id] : undefined;
  return person
    ? { id, ...person, role: 'staff', profileImageUrl: null, name: `${person.firstName} ${person.lastName}` }
    : DELETED_AUTHOR_VIEW;
};

const group: ConversationLocal = {
  id: 'g1',
  kind: 'group',
  name: 'Night team',
  house: null,
  memberIds: ['me', 'agnes', 'bert', 'emma'],
  createdBy: 'emma',
  otherUserId: null,
  readUpTo: 0,
  otherReadUpTo: 0,
  readMarks: {},
  muted: false,
  lastMessageAt: null,
  createdAt: 1,
  updatedAt: 1,
  localPending: false,
};

// A stand-in for the one query MembersView makes (colleagues to add), which a static render never hears answer.
const db = { users: { find: () => ({ $: NEVER }) } } as unknown as UserDatabase;

const badge = (label: string) => `<span class="badge badge-info account-type-badge"[^>]*>${label}</span>`;

describe('the Agency and Bank badges in the chat panel (decision 147)', () => {
  it('stands beside agency and bank colleagues in a group members view, and not beside employees', () => {
    const html = renderToStaticMarkup(
      createElement(MembersView, { db, me, conversation: group, authors, onLeft: () => {} }),
    );
    expect(html).toMatch(new RegExp(`Agnes Agency${badge('Agency')}`));
    expect(html).toMatch(new RegExp(`Bert Bank${badge('Bank')}`));
    expect(html).toMatch(/Emma Employee<\/span>/);
    expect(html).toMatch(/Mia Me \(you\)<\/span>/);
    expect(html.match(/account-type-badge/g)).toHaveLength(2);
  });

  it('marks a name in the colleague list or a group sender as the post cards do', () => {
    const name = (type: AccountType | null) =>
      renderToStaticMarkup(createElement(ChatName, { className: 'chat-sender', name: 'Agnes Agency', type }));
    expect(name('agency')).toMatch(
      /^<span class="chat-sender">Agnes Agency<span class="badge badge-info account-type-badge" title="Agency staff">Agency<\/span><\/span>$/,
    );
    expect(name('employee')).toBe('<span class="chat-sender">Agnes Agency</span>');
    expect(name(null)).toBe('<span class="chat-sender">Agnes Agency</span>');
  });
});
