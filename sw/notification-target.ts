/** What a notification click needs from a push's `data` (schema/push.ts PushPayloadSchema). */
export interface NotificationData {
  type?: string;
  conversationId?: string;
  postId?: string;
  urgent?: boolean;
}

/** Push types whose click shows their post (schema/push.ts). */
const POST_TYPES: readonly string[] = ['urgent', 'reminder', 'announcement', 'confirm_reminder', 'mention'];

/**
 * Where a notification click takes the app (docs/behaviour.md, "Notifications"): a chat message opens the chat, an
 * urgent post or its reminder scrolls to the post and highlights it, as do an announcement, a reminder to confirm a
 * post (decision 137) and a mention (decision 144), anything else the home feed. A path with query, resolved against the app's origin by the caller.
 */
export function notificationTargetUrl(data: NotificationData | null | undefined): string {
  // A mention in a chat message opens the chat too (decision 150).
  if (data?.type === 'chat' || (data?.type === 'mention' && data.conversationId)) return '/?openChat=true';
  if (data?.postId && (data.urgent || POST_TYPES.includes(data.type ?? ''))) {
    return `/?highlightPost=${encodeURIComponent(data.postId)}`;
  }
  return '/';
}

/**
 * The message the service worker posts to an open window on a click (NOTIFICATION_CLICK;
 * docs/behaviour.md, "Notifications").
 */
export function notificationClickMessage(action: string, data: NotificationData | null | undefined) {
  return { type: 'NOTIFICATION_CLICK' as const, action, data: data ?? {}, targetUrl: notificationTargetUrl(data) };
}
