import { atom } from 'jotai';

/** Whether the chat panel is open; the header, sidebar, menu, `?openChat=true` and a chat push open it. */
export const chatOpenAtom = atom(false);
