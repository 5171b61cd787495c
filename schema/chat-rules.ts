/**
 * The rules of chat that the app shows and checks (docs/behaviour.md, "Chat"), apart from their zod schemas in
 * chat.ts so that the app's header does not build those (decision 106). chat.ts exports them too.
 */

/** A message is bounded like a comment (decision 30). */
export const MESSAGE_CONTENT_MAX = 2000;
/** Photos and files one message carries, as many as a post (decision 150). */
export const MESSAGE_FILES_MAX = 20;
/** GET /api/conversations/{id}/messages answers the newest messages, oldest first, at most this many by default. */
export const MESSAGES_PAGE_DEFAULT = 200;
export const MESSAGES_PAGE_MAX = 1000;
/**
 * The chat screen renders a conversation a page at a time, newest first (decision 73): this many messages
 * at first and on each scroll to the top.
 */
export const CHAT_SCREEN_PAGE = 50;

/** The kinds of conversation (decision 143): one-to-one, a named group, a house's own chat. */
export const CONVERSATION_KINDS = ['direct', 'group', 'house'] as const;
export type ConversationKind = (typeof CONVERSATION_KINDS)[number];
/** A group's name is bounded like a post's category label would be: one line in the chat list. */
export const GROUP_NAME_MAX = 100;
/** Most colleagues one request adds to a group (a house has fewer staff). */
export const GROUP_MEMBERS_MAX = 200;

export const CHAT_MESSAGES = {
  messageRequired: 'Message cannot be empty',
  messageTooLong: `Message must be at most ${MESSAGE_CONTENT_MAX} characters`,
  conversationNotFound: 'Conversation not found',
  userNotFound: 'User not found',
  participantRequired: 'memberIds is required',
  membersRequired: 'memberIds must name at least one colleague',
  tooManyMembers: `At most ${GROUP_MEMBERS_MAX} colleagues can be added at once`,
  groupNameRequired: 'A group needs a name',
  groupNameTooLong: `A group name must be at most ${GROUP_NAME_MAX} characters`,
  notMembersManager: "Only the group's creator or an administrator can change its members",
  notRenamer: "Only the group's creator or an administrator can rename it",
  houseMembersFixed: "A house chat's members follow the house list; an administrator changes a colleague's houses",
  directMembersFixed: 'A one-to-one chat keeps its two members; start a group to add more',
  onlyGroupRenamed: 'Only a group can be renamed',
  joinAdminsOnly: 'Only administrators can join a house chat of a house they do not work in',
  joinHouseOnly: 'Only a house chat can be joined; a group’s creator or an administrator adds members',
  nothingToChange: 'Give a name or muted',
  invalidUpTo: 'upTo must be the id of a message in this conversation',
  notWithYourself: 'You cannot start a conversation with yourself',
  participantDeleted: 'This conversation is closed: the other account was deleted',
  messageExists: 'A message with this id already exists',
  messagesImmutable: 'Messages cannot be changed or deleted',
  invalidBefore: 'before must be the id of a message in this conversation',
  tooManyFiles: `At most ${MESSAGE_FILES_MAX} photos and files can be sent in one message`,
  fileNotFound: 'A photo or file of this message was not found. Please attach it again.',
} as const;

/**
 * A conversation's id is made from its two participants, so both phones name it the same even offline and a
 * pair can never have two conversations: the two user ids, sorted, joined by a colon.
 */
export function conversationIdOf(userId: string, otherUserId: string): string {
  return userId < otherUserId ? `${userId}:${otherUserId}` : `${otherUserId}:${userId}`;
}

/** The two user ids of a conversation id, or null when it is not one. */
export function participantsOf(conversationId: string): [string, string] | null {
  const parts = conversationId.split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1] || parts[0] >= parts[1]) return null;
  return [parts[0], parts[1]];
}

/** A house chat's id: one per house, named by it, so it is the same on every server and device (decision 143). */
export function houseChatIdOf(house: string): string {
  return `house:${house}`;
}
