import type { ConversationView } from '../../../schema/chat';
import type { CurrentUser } from '../../../schema/auth';
import { CHAT_MESSAGES, GROUP_NAME_MAX } from '../../../schema/chat-rules';
import { canJoinHouseChat, canManageGroup } from '../../../schema/permissions';
import type { ConversationLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { api } from '../../lib/api';

/** The New Group form's own message when nobody is chosen (the server's names the field, not the person). */
export const CHOOSE_COLLEAGUES = 'Choose at least one colleague';
/** What an online-only chat action says offline, as the app does for its other online-only actions. */
export const GROUPS_OFFLINE = 'You are offline: groups and members can be changed only online.';

const path = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

/**
 * What New Group sends, or the first thing to correct: the name, with the server's own rules and messages ("A group
 * needs a name"), then someone chosen.
 */
export function newGroupRequest(
  name: string,
  memberIds: readonly string[],
): { body: { name: string; memberIds: string[] } } | { error: string } {
  const trimmed = name.trim();
  if (!trimmed) return { error: CHAT_MESSAGES.groupNameRequired };
  if (trimmed.length > GROUP_NAME_MAX) return { error: CHAT_MESSAGES.groupNameTooLong };
  if (memberIds.length === 0) return { error: CHOOSE_COLLEAGUES };
  return { body: { name: trimmed, memberIds: [...memberIds] } };
}

/** Starts a group over REST (decision 143: groups are made on the server only); the sync brings it to the device. */
export async function startGroup(body: { name: string; memberIds: string[] }): Promise<ConversationView> {
  const answer = await api.post('/api/conversations', body);
  const { ConversationViewSchema } = await import('../../../schema/chat');
  return ConversationViewSchema.parse(answer);
}

/** A group's creator or an admin adds colleagues. */
export async function addGroupMembers(id: string, userIds: string[]): Promise<void> {
  await api.post(`${path(id)}/members`, { userIds });
}

/** A group's creator or an admin removes a member. */
export async function removeGroupMember(id: string, userId: string): Promise<void> {
  await api.delete(`${path(id)}/members/${encodeURIComponent(userId)}`);
}

/** A group's creator or an admin renames it. */
export async function renameGroup(id: string, name: string): Promise<void> {
  await api.patch(path(id), { name });
}

/** Leaves a group, or a house chat an admin joined; house staff get the server's 409 and its message. */
export async function leaveConversation(id: string): Promise<void> {
  await api.post(`${path(id)}/leave`);
}

/** An admin joins a house chat they are not in. */
export async function joinHouseChat(id: string): Promise<void> {
  await api.post(`${path(id)}/join`);
}

/** Mutes or unmutes a conversation for oneself through the synced `muted` field, so offline too (decision 143). */
export async function setConversationMuted(db: UserDatabase, id: string, muted: boolean): Promise<void> {
  const doc = await db.conversations.findOne(id).exec();
  if (!doc || doc.muted === muted) return;
  await doc.incrementalPatch({ muted, localPending: true });
}

/** What a person may do in a group or house chat's members view (decision 146). */
export function memberActionsOf(me: CurrentUser, conversation: ConversationLocal) {
  const member = conversation.memberIds.includes(me.id);
  const group = conversation.kind === 'group';
  return {
    manage: group && member && canManageGroup(me, conversation),
    leave: member,
    join: conversation.kind === 'house' && !member && canJoinHouseChat(me),
  };
}
