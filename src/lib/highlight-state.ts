import { atom } from 'jotai';

/**
 * A request to scroll to a post and highlight it for 3 s, from outside the feed (the bell, a notification
 * click); `seq` makes choosing the same post again a new request.
 */
export const highlightRequestAtom = atom<{ postId: string; seq: number } | null>(null);
