import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { AcknowledgementLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { storedPost } from '../../db/test-fixtures';
import { localDay, outstandingPosts } from './confirm-list';
import { overviewPath } from './confirmation-overview';
import { PostConfirmation } from './post-confirmation';
import { confirmPost } from './use-confirmations';

const ack = (postId: string, fields: Partial<AcknowledgementLocal> = {}): AcknowledgementLocal => ({
  id: `${postId}:me`,
  postId,
  userId: 'me',
  createdAt: 1,
  acknowledgedAt: null,
  writtenAt: null,
  viewedAt: null,
  localPending: false,
  ...fields,
});
const asked = (id: string, confirmBy: string | null) => storedPost({ id, requiresConfirmation: true, confirmBy });

describe('"To confirm"', () => {
  it('lists posts still to confirm, earliest due first, undated last, and says which are overdue', () => {
    const posts = new Map(
      [
        asked('later', '2026-12-31'),
        asked('undated-old', null),
        asked('undated-new', null),
        asked('overdue', '2026-11-01'),
        asked('confirmed', '2026-11-02'),
        storedPost({ id: 'urgent-only', isUrgent: true, requiresConfirmation: false, confirmBy: null }),
      ].map((post) => [post.id, post]),
    );
    const acks = [
      ack('later'),
      ack('undated-new', { createdAt: 5 }),
      ack('undated-old', { createdAt: 2 }),
      ack('overdue'),
      ack('confirmed', { acknowledgedAt: 3, writtenAt: 3, localPending: true }),
      ack('urgent-only'),
      ack('not-here'),
    ];
    const rows = outstandingPosts(acks, posts, '2026-11-26');
    expect(rows.map((row) => [row.post.id, row.overdue])).toEqual([
      ['overdue', true],
      ['later', false],
      ['undated-old', false],
      ['undated-new', false],
    ]);
  });

  it('does not list a post the user is only mentioned in', () => {
    const posts = new Map([[asked('asked', null).id, asked('asked', null)]]);
    const mention = ack('asked', { id: 'mention:asked:me', mention: true, mentionedBy: 'ann', commentId: null });
    expect(outstandingPosts([mention], posts, '2026-11-26')).toEqual([]);
  });

  it('names the device’s own calendar day', () => {
    expect(localDay(new Date(2026, 0, 5, 23, 30).getTime())).toBe('2026-01-05');
  });

  it('asks the overview for a house and overdue posts only when chosen', () => {
    expect(overviewPath('all', false)).toBe('/api/confirmations');
    expect(overviewPath('Apps House', true)).toBe('/api/confirmations?house=Apps+House&overdue=1');
  });

  it('shows nothing on a card until the device holds the request', () => {
    const user = {
      id: 'me',
      email: 'me@test.example',
      firstName: 'Me',
      lastName: 'Myself',
      role: 'staff' as const,
      isAdmin: false,
      isMasterAdmin: false,
      isActive: true,
      profileImageUrl: null,
    };
    expect(renderToStaticMarkup(createElement(PostConfirmation, { db: null, post: asked('p', null), user }))).toBe('');
  });
});

describe('confirmPost', () => {
  let db: UserDatabase;
  afterEach(async () => {
    await db.remove();
  });

  it('writes the acknowledgement document as an alert’s, pending, once', async () => {
    db = await createSyncedDatabase(
      `sp_confirm_${randomUUID().replace(/-/g, '')}`,
      {
        indexedDB,
        IDBKeyRange,
        multiInstance: false,
      },
      ['acknowledgements'],
    );
    await db.acknowledgements.insert(ack('p1', { createdAt: 10 }));
    await confirmPost(db, 'p1', 'me', 20);
    await confirmPost(db, 'p1', 'me', 30);
    const doc = (await db.acknowledgements.findOne('p1:me').exec())!;
    expect([doc.acknowledgedAt, doc.writtenAt, doc.viewedAt, doc.localPending]).toEqual([20, 20, 20, true]);
  });
});
