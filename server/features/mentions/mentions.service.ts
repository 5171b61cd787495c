import { listHouses } from '../../../schema/constants';
import { canSeeMentionsOf, mentionedHouse } from '../../../schema/mention-rules';
import type { AcknowledgementDoc } from '../../../schema/sync';
import type { AppDeps, SessionUser } from '../../lib/context';
import { mentionPush, messageMentionPush, PUSH_OPTIONS, pushToUsers } from '../push/push.service';
import {
  countUnviewedMentions,
  findMentionEntry,
  insertMentionEntries,
  listActiveUserIds,
  listAllMentionEntriesSince,
  listMentionableUsers,
  listMentionEntriesSince,
  markMentionEntriesDeleted,
  updateMentionViewed,
  type MentionEntryRow,
} from './mentions.queries';

/**
 * The mentions a post or comment keeps (decision 144): active colleagues' ids and `house:<one of the houses>`; anything
 * else (an unknown or deactivated account, another house) is dropped, not refused, so a post written offline is never
 * lost for a colleague who left meanwhile. The shape and the count were checked by MentionsSchema.
 */
export async function keptMentions(deps: AppDeps, mentions: string[]): Promise<string[]> {
  if (mentions.length === 0) return [];
  const houses = listHouses(deps.config.orgName);
  const people = new Set(
    await listActiveUserIds(
      deps.db,
      mentions.filter((mention) => mentionedHouse(mention) === null),
    ),
  );
  return mentions.filter((mention) => {
    const house = mentionedHouse(mention);
    return house === null ? people.has(mention) : houses.includes(house);
  });
}

/** Where a mention was made, and who made it. */
export interface MentionSource {
  postId: string;
  /** Null when the mention is in the post itself. */
  commentId: string | null;
  authorId: string | null;
  /** The author's first name, as the feed's pushes name people (decision 36). */
  authorFirstName: string;
  /** The post's audience: a post addressed to houses is seen only by them and the admins. */
  audienceHouses: string[];
}

/** The active colleagues these mentions name, a house standing for its active members. */
function mentionedPeople(deps: AppDeps, mentions: string[]) {
  const houses = mentions.map(mentionedHouse).filter((house): house is string => house !== null);
  const ids = mentions.filter((mention) => mentionedHouse(mention) === null);
  return listMentionableUsers(deps.db, ids, houses);
}

/**
 * Tells each person newly mentioned in a post or comment: those `mentions` name that `before` did not (a house stands
 * for its active members), but never the author, nor anyone who may not see the post. Each gets a bell entry and a
 * push, at most three a minute from one author, then a summary (decision 125); only once per post or comment, however
 * often it is sent or edited (decision 144). Answers who was told.
 */
export async function notifyMentions(deps: AppDeps, source: MentionSource, mentions: string[], before: string[] = []) {
  const added = mentions.filter((mention) => !before.includes(mention));
  if (added.length === 0) return [];
  const already = new Set((await mentionedPeople(deps, before)).map((user) => user.id));
  const audience = { audienceHouses: source.audienceHouses };
  const told = (await mentionedPeople(deps, added))
    .filter((user) => user.id !== source.authorId && !already.has(user.id) && canSeeMentionsOf(user, audience))
    .map((user) => user.id);
  const entry = { postId: source.postId, commentId: source.commentId, mentionedBy: source.authorId, at: deps.now() };
  const created = await insertMentionEntries(deps.db, entry, told);
  if (created.length === 0) return [];
  deps.hub.notify('acknowledgements', created);
  const name = source.authorFirstName;
  await pushToUsers(deps, created, mentionPush(name, source.postId, source.commentId), PUSH_OPTIONS.mention, {
    key: `mention:${source.authorId ?? ''}`,
    summary: { kind: 'mentions', authorFirstName: name },
  });
  return created;
}

/** Where a mention in a chat message was made, and by whom. */
export interface MessageMentionSource {
  conversationId: string;
  messageId: string;
  authorId: string;
  authorFirstName: string;
}

/**
 * Tells the members a chat message mentions (the chat decides who they are: members only, decision 150): a bell entry
 * each, once per message however often it is sent, and a push to those in `pushTo`, naming who and the conversation,
 * never the words. Answers who was told.
 */
export async function notifyMessageMentions(
  deps: AppDeps,
  source: MessageMentionSource,
  userIds: string[],
  pushTo: ReadonlySet<string>,
): Promise<string[]> {
  const entry = {
    conversationId: source.conversationId,
    messageId: source.messageId,
    mentionedBy: source.authorId,
    at: deps.now(),
  };
  const created = await insertMentionEntries(deps.db, entry, userIds);
  if (created.length === 0) return [];
  deps.hub.notify('acknowledgements', created);
  const pushed = created.filter((userId) => pushTo.has(userId));
  const name = source.authorFirstName;
  await pushToUsers(deps, pushed, messageMentionPush(name, source.conversationId), PUSH_OPTIONS.mention, {
    key: `mention:${source.authorId}`,
    summary: { kind: 'mentions', authorFirstName: name },
  });
  return created;
}

/** A post or comment was deleted: its mention entries leave the bells they are in. */
export async function withdrawMentions(deps: AppDeps, of: { postId: string } | { commentId: string }): Promise<void> {
  const userIds = await markMentionEntriesDeleted(deps.db, of);
  if (userIds.length > 0) deps.hub.notify('acknowledgements', userIds);
}

/** The bell's badge counts the user's mention entries not yet seen beside their alerts. */
export async function countUnviewedMentionEntries(deps: AppDeps, actor: SessionUser): Promise<number> {
  return await countUnviewedMentions(deps.db, actor.id);
}

/** Whether an id is a mention entry's (`mention:…`) rather than an alert row's. */
export function isMentionEntryId(id: string): boolean {
  return id.startsWith('mention:');
}

/** The bell showed the user's own entry: seen once, at the server's time; anyone else's is left alone. */
export async function markMentionViewed(deps: AppDeps, actor: SessionUser, id: string): Promise<void> {
  if (await updateMentionViewed(deps.db, id, actor.id, deps.now())) deps.hub.notify('acknowledgements', [actor.id]);
}

/** A mention entry as the user's `acknowledgements` collection carries it (decision 144). */
export function toMentionEntryDoc(row: MentionEntryRow): AcknowledgementDoc {
  return {
    id: row.id,
    // A mention in a chat message names its conversation instead (decision 150).
    postId: row.postId ?? '',
    userId: row.userId,
    createdAt: row.createdAt,
    acknowledgedAt: null,
    writtenAt: null,
    viewedAt: row.viewedAt,
    mention: true,
    mentionedBy: row.mentionedBy,
    commentId: row.commentId,
    conversationId: row.conversationId,
    _deleted: row.deleted,
  };
}

/** The user's own entry as they would pull it; anyone else's is null. */
export async function findMentionEntryDoc(
  deps: AppDeps,
  id: string,
  actor: SessionUser,
): Promise<AcknowledgementDoc | null> {
  const row = await findMentionEntry(deps.db, id);
  return row && row.userId === actor.id ? toMentionEntryDoc(row) : null;
}

/** A user's entries changed after a checkpoint, in feed order, as documents. */
export async function listMentionEntryDocsSince(
  deps: AppDeps,
  actor: SessionUser,
  seq: number,
  id: string,
  limit: number,
) {
  return (await listMentionEntriesSince(deps.db, actor.id, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toMentionEntryDoc(row),
  }));
}

/** The entries of several users changed after a sequence, by user: one read for all of them. */
export async function listMentionEntryDocsOfUsersSince(deps: AppDeps, userIds: ReadonlySet<string>, seq: number) {
  const byUser = new Map<string, { seq: number; doc: AcknowledgementDoc }[]>();
  for (const row of await listAllMentionEntriesSince(deps.db, seq)) {
    if (!userIds.has(row.userId)) continue;
    byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), { seq: row.serverSeq, doc: toMentionEntryDoc(row) }]);
  }
  return byUser;
}
