import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PostLocal, ReactionLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { editPost, toggleReaction } from './feed-actions';
import { buildPostDoc } from './post-draft';

const env = { indexedDB, IDBKeyRange, multiInstance: false };
let db: UserDatabase;

beforeEach(async () => {
  db = await createSyncedDatabase(`sp_actions_${randomUUID().replace(/-/g, '')}`, env, ['posts', 'reactions']);
});
afterEach(async () => {
  await db.remove();
});

/** A post as the server sent it, and what the edit form shows of it. */
async function storedPost(): Promise<PostLocal> {
  const doc = buildPostDoc(
    randomUUID(),
    'author-1',
    {
      content: 'Fire drill at noon',
      category: 'company_announcement',
      isUrgent: false,
      houseTags: [],
    },
    [],
  );
  await db.posts.insert({ ...doc, localPending: false });
  return (await db.posts.findOne(doc.id).exec())!.toMutableJSON();
}

/** A colleague's change, pulled while the form was open. */
async function arrives(id: string, change: Partial<PostLocal>) {
  await (await db.posts.findOne(id).exec())!.incrementalPatch({ ...change, localPending: false });
}

describe('editPost', () => {
  it('writes the new words without undoing a move to another category made meanwhile', async () => {
    const shown = await storedPost();
    await arrives(shown.id, { category: 'shifts_lifts', updatedAt: shown.updatedAt + 5 });
    await editPost(db, shown.id, { content: 'Fire drill at one', isUrgent: false }, shown);
    const post = (await db.posts.findOne(shown.id).exec())!;
    expect(post.content).toBe('Fire drill at one');
    expect(post.category).toBe('shifts_lifts');
    expect(post.localPending).toBe(true);
    expect(post.updatedAt).toBeGreaterThan(shown.updatedAt + 5);
  });

  it('moves a post without writing back the words as they were shown', async () => {
    const shown = await storedPost();
    await arrives(shown.id, { content: 'Fire drill moved to 2pm', updatedAt: shown.updatedAt + 5 });
    await editPost(db, shown.id, { content: shown.content, category: 'wages_hr', isUrgent: false }, shown);
    const post = (await db.posts.findOne(shown.id).exec())!;
    expect(post.content).toBe('Fire drill moved to 2pm');
    expect(post.category).toBe('wages_hr');
  });

  it('writes every field given when it is not told what was shown', async () => {
    const shown = await storedPost();
    await editPost(db, shown.id, { content: '  Drill cancelled  ', category: 'wages_hr', isUrgent: true });
    const post = (await db.posts.findOne(shown.id).exec())!;
    expect(post.content).toBe('Drill cancelled');
    expect(post.category).toBe('wages_hr');
    expect(post.isUrgent).toBe(true);
  });

  it('keeps a colleague’s urgency when the form’s urgency was left as shown', async () => {
    const shown = await storedPost();
    await arrives(shown.id, { isUrgent: true, updatedAt: shown.updatedAt + 5 });
    // The form showed an ordinary post and the user left it so: the colleague's urgency stands.
    await editPost(db, shown.id, { content: 'Fire drill at two', isUrgent: false }, shown);
    expect((await db.posts.findOne(shown.id).exec())!.isUrgent).toBe(true);
  });

  it('keeps the audience of a post that requires confirmation though it is not urgent, and drops it with it', async () => {
    const shown = await storedPost();
    const houses = ['Apps House'];
    await editPost(db, shown.id, {
      content: shown.content,
      isUrgent: false,
      requiresConfirmation: true,
      confirmBy: '2026-12-31',
      audienceHouses: houses,
    });
    const asked = (await db.posts.findOne(shown.id).exec())!.toMutableJSON();
    expect(asked).toMatchObject({ requiresConfirmation: true, confirmBy: '2026-12-31', audienceHouses: houses });
    await editPost(db, shown.id, { content: 'Fire drill at one', isUrgent: false }, asked);
    expect((await db.posts.findOne(shown.id).exec())!.audienceHouses).toEqual(houses);
    await editPost(db, shown.id, { content: asked.content, isUrgent: false, requiresConfirmation: false }, asked);
    const ordinary = (await db.posts.findOne(shown.id).exec())!;
    expect([ordinary.requiresConfirmation, ordinary.confirmBy, ordinary.audienceHouses]).toEqual([false, null, []]);
  });

  it('leaves confirmation as the server has it on a post kept from before posts carried it', async () => {
    const shown = await storedPost();
    const { requiresConfirmation, confirmBy, ...older } = shown;
    void requiresConfirmation;
    void confirmBy;
    await (await db.posts.findOne(shown.id).exec())!.incrementalModify(() => older);
    await editPost(db, shown.id, { content: 'Fire drill at one', isUrgent: false }, older);
    const post = (await db.posts.findOne(shown.id).exec())!.toMutableJSON();
    expect('requiresConfirmation' in post || 'confirmBy' in post).toBe(false);
  });
});

describe('buildPostDoc', () => {
  it('keeps the audience and due date only on a post that requires confirmation', () => {
    const draft = { content: 'Policy', category: 'company_announcement' as const, isUrgent: false, houseTags: [] };
    const asked = buildPostDoc(
      'p1',
      'a1',
      { ...draft, audienceHouses: ['Apps House'], requiresConfirmation: true, confirmBy: '2026-12-31' },
      [],
    );
    expect(asked).toMatchObject({
      requiresConfirmation: true,
      confirmBy: '2026-12-31',
      audienceHouses: ['Apps House'],
    });
    const plain = buildPostDoc('p2', 'a1', { ...draft, audienceHouses: ['Apps House'], confirmBy: '2026-12-31' }, []);
    expect(plain).toMatchObject({ requiresConfirmation: false, confirmBy: null, audienceHouses: [] });
  });
});

describe('toggleReaction', () => {
  const mine = (type: ReactionLocal['type']): ReactionLocal => ({
    id: 'post-1:user-1',
    postId: 'post-1',
    userId: 'user-1',
    type,
    createdAt: 1,
    updatedAt: 1,
    localPending: false,
  });
  const stored = () => db.reactions.findOne('post-1:user-1').exec();

  it('applies a new choice to a copy that a sync stored after the screen was drawn', async () => {
    await db.reactions.insert(mine('love'));
    // The screen still showed no reaction of this user.
    await toggleReaction(db, 'post-1', 'user-1', 'like', undefined);
    expect((await stored())?.toJSON()).toMatchObject({ type: 'like', localPending: true });
  });

  it('removes the reaction shown, and inserts over an earlier removal', async () => {
    await toggleReaction(db, 'post-1', 'user-1', 'wow', undefined);
    const shown = (await stored())!.toMutableJSON();
    await toggleReaction(db, 'post-1', 'user-1', 'wow', shown);
    expect(await stored()).toBeNull();
    await toggleReaction(db, 'post-1', 'user-1', 'sad', undefined);
    expect((await stored())?.type).toBe('sad');
  });

  it('keeps a reaction removed when it was already gone', async () => {
    await toggleReaction(db, 'post-1', 'user-1', 'like', mine('like'));
    expect(await stored()).toBeNull();
  });
});
