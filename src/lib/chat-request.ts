import { atom } from 'jotai';

/**
 * A request to open the chat on one conversation, from outside the chat (the bell's mention of a message, decision
 * 150); `seq` makes choosing the same conversation again a new request.
 */
export const chatRequestAtom = atom<{ conversationId: string; seq: number } | null>(null);
