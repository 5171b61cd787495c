/** What a notification click needs from a push's `data` (schema/push.ts PushPayloadSchema). */
export interface NotificationData {
  type?: string;
  conversationId?: string;
  postId?: string;
  urgent?: boolean;
}

/**
 * Where a notification click takes the app (docs/behaviour.md, "Notifications"): a chat message opens the chat, an
 * urgent post or its reminder scrolls to the post and highlights it, an announcement shows its post too, anything else
 * the home feed. A path with query, resolved against the app's origin by the caller.
 */
export function notificationTargetUrl(data: NotificationData | null | undefined): string {
  if (data?.type === 'chat') return '/?openChat=true';
  if (
    data?.postId &&
    (data.urgent || data.type === 'urgent' || data.type === 'reminder' || data.type === 'announcement')
  ) {
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
