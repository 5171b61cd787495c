import { useMemo } from 'react';
import type { LocalStore } from '../../db/local-store-state';
import { useObservable } from '../../lib/use-observable';
import { useWhileOnline } from '../../lib/use-while-online';
import { sendWaitingMessages, uploadChatFile, waitingMessages$, type WaitingMessage } from './waiting-messages';

const NONE: WaitingMessage[] = [];

/** The signed-in user's messages of one conversation waiting for their files, oldest first. */
export function useWaitingMessages(userId: string, conversationId: string): WaitingMessage[] {
  const waiting$ = useMemo(() => waitingMessages$(userId, conversationId), [userId, conversationId]);
  return useObservable(waiting$, NONE).value;
}

/** The run that uploads waiting messages' files and sends them; null without a store. */
export function useSendWaiting(store: LocalStore | null): (() => void) | null {
  return useMemo(
    () =>
      store &&
      (() =>
        void sendWaitingMessages({
          userId: store.userId,
          upload: uploadChatFile,
          insertMessage: async (doc) => {
            // Inserted before a crash that kept the waiting copy: the message is there already.
            if (await store.db.messages.findOne(doc.id).exec()) return;
            await store.db.messages.insert(doc);
          },
        })),
    [store],
  );
}

/** Sends waiting messages whenever the device is online (at start, on reconnect, then every 15 s). */
export function useSendWaitingMessages(store: LocalStore | null): (() => void) | null {
  const run = useSendWaiting(store);
  useWhileOnline(run);
  return run;
}
