import type { SyncCollection } from '../../../schema/sync';
import { acknowledgementsSync } from '../alerts/alerts.sync';
import { conversationsSync, messagesSync } from '../chat/chat.sync';
import { commentsSync } from '../comments/comments.sync';
import { handoversSync } from '../handovers/handovers.sync';
import { postsSync } from '../posts/posts.sync';
import { reactionsSync } from '../reactions/reactions.sync';
import { residentsSync, residentViewsSync } from '../residents/residents.sync';
import { usersSync } from '../users/users.sync';
import type { SyncHandler } from './sync.service';

/** Each collection's handler, exported by its feature. */
export const SYNC_HANDLERS: Record<SyncCollection, SyncHandler> = {
  users: usersSync,
  posts: postsSync,
  comments: commentsSync,
  reactions: reactionsSync,
  conversations: conversationsSync,
  messages: messagesSync,
  acknowledgements: acknowledgementsSync,
  residents: residentsSync,
  residentViews: residentViewsSync,
  handovers: handoversSync,
};
