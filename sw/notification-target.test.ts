import { describe, expect, it } from 'vitest';
import { notificationClickMessage, notificationTargetUrl } from './notification-target';

describe('notification click target', () => {
  it('opens the chat for a chat message', () => {
    expect(notificationTargetUrl({ type: 'chat', conversationId: 'a:b' })).toBe('/?openChat=true');
  });

  it('highlights the post of an urgent alert, its reminder and an announcement', () => {
    expect(notificationTargetUrl({ type: 'urgent', postId: 'p 1', urgent: true })).toBe('/?highlightPost=p%201');
    expect(notificationTargetUrl({ type: 'reminder', postId: 'p1', urgent: true })).toBe('/?highlightPost=p1');
    expect(notificationTargetUrl({ type: 'announcement', postId: 'p2' })).toBe('/?highlightPost=p2');
  });

  it('highlights the post a reminder to confirm it names', () => {
    expect(notificationTargetUrl({ type: 'confirm_reminder', postId: 'p 3' })).toBe('/?highlightPost=p%203');
  });

  it('highlights the post a mention is in, and opens the feed for a summary of mentions', () => {
    expect(notificationTargetUrl({ type: 'mention', postId: 'p 4' })).toBe('/?highlightPost=p%204');
    expect(notificationTargetUrl({ type: 'mention' })).toBe('/');
    expect(notificationTargetUrl({ type: 'mention', conversationId: 'g1' })).toBe('/?openChat=true');
  });

  it('opens the feed for a test push or missing data', () => {
    expect(notificationTargetUrl({ type: 'test' })).toBe('/');
    expect(notificationTargetUrl(undefined)).toBe('/');
  });

  it('carries action, data and target in the NOTIFICATION_CLICK message', () => {
    expect(notificationClickMessage('', { type: 'chat', conversationId: 'a:b' })).toEqual({
      type: 'NOTIFICATION_CLICK',
      action: '',
      data: { type: 'chat', conversationId: 'a:b' },
      targetUrl: '/?openChat=true',
    });
  });
});
