import { describe, expect, it } from 'vitest';
import type { AcknowledgementLocal, PostLocal } from '../../db/collections';
import { alertsToShow, formatDuration, formatRelativeTime, mentionNotices } from './alert-list';

const post = (id: string, createdAt: number, isUrgent = true): PostLocal => ({
  id,
  authorId: 'admin',
  content: `Alert ${id}`,
  category: 'company_announcement',
  isUrgent,
  houseTags: [],
  audienceHouses: [],
  images: [],
  attachments: [],
  createdAt,
  writtenAt: createdAt,
  updatedAt: createdAt,
  editedBy: null,
  localPending: false,
});
const ack = (postId: string, acknowledgedAt: number | null, localPending = false): AcknowledgementLocal => ({
  id: `${postId}:me`,
  postId,
  userId: 'me',
  createdAt: 1,
  acknowledgedAt,
  writtenAt: acknowledgedAt,
  viewedAt: null,
  localPending,
});

describe('alerts the modal shows', () => {
  it('lists unacknowledged live urgent posts newest first, keeps offline acknowledgements marked, drops the rest', () => {
    const posts = new Map(
      [post('old', 10), post('new', 20), post('done', 30), post('ordinary', 40, false), post('offline', 5)].map((p) => [
        p.id,
        p,
      ]),
    );
    const rows = alertsToShow(
      [
        ack('old', null),
        ack('new', null),
        ack('done', 99),
        ack('ordinary', null),
        ack('offline', 99, true),
        ack('gone', null),
      ],
      posts,
    );
    expect(rows.map((r) => [r.post.id, r.savedOffline])).toEqual([
      ['new', false],
      ['old', false],
      ['offline', true],
    ]);
  });

  it('leaves out mention entries, which ask for no acknowledgement', () => {
    const posts = new Map([[post('urgent', 10).id, post('urgent', 10)]]);
    const mention: AcknowledgementLocal = { ...ack('urgent', null), id: 'mention:urgent:me', mention: true };
    expect(alertsToShow([mention], posts)).toEqual([]);
  });

  it('writes times relative to now', () => {
    const now = 1_000_000_000;
    expect(formatRelativeTime(now - 5_000, now)).toBe('just now');
    expect(formatRelativeTime(now - 60_000, now)).toBe('1 minute ago');
    expect(formatRelativeTime(now - 3 * 3_600_000, now)).toBe('3 hours ago');
    expect(formatRelativeTime(now - 2 * 86_400_000, now)).toBe('2 days ago');
  });

  it('writes how long an acknowledgement took', () => {
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(185)).toBe('3 min 5 s');
    expect(formatDuration(2 * 3600 + 4 * 60)).toBe('2 h 4 min');
  });
});

describe('mentions in the bell', () => {
  const entry = (id: string, createdAt: number, by: string | null, overrides: Partial<AcknowledgementLocal> = {}) => ({
    ...ack(id, null),
    id: `mention:${id}:me`,
    createdAt,
    mention: true,
    mentionedBy: by,
    commentId: null,
    ...overrides,
  });
  const nameOf = (id: string | null) => (id === 'ann' ? 'Ann Lee' : 'Deleted User');

  it("says who mentioned the user, newest first, at most the bell's number, and only mention entries", () => {
    const notices = mentionNotices(
      [
        entry('p1', 10, 'ann'),
        entry('p2', 30, null, { commentId: 'c2', viewedAt: 31 }),
        ack('alert', null),
        entry('p3', 20, 'ann'),
      ],
      nameOf,
      2,
    );
    expect(notices).toEqual([
      {
        id: 'mention:p2:me',
        postId: 'p2',
        commentId: 'c2',
        conversationId: null,
        text: 'Deleted User mentioned you',
        createdAt: 30,
        viewed: true,
      },
      {
        id: 'mention:p3:me',
        postId: 'p3',
        commentId: null,
        conversationId: null,
        text: 'Ann Lee mentioned you',
        createdAt: 20,
        viewed: false,
      },
    ]);
  });

  it('names the conversation of a mention in a chat message, which has no post', () => {
    const [notice] = mentionNotices([entry('m1', 5, 'ann', { postId: '', conversationId: 'g1' })], nameOf, 5);
    expect(notice).toMatchObject({ postId: '', conversationId: 'g1', text: 'Ann Lee mentioned you' });
  });
});
