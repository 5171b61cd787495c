import type { UserDatabase } from '../database';
import type { SyncController } from '../replication';

export interface ChaosUser {
  id: string;
  email: string;
  role: 'admin' | 'staff';
}

/** One phone: a signed-in user, a local database that may be closed (the app not running) and a network switch. */
export interface Device {
  name: string;
  user: ChaosUser;
  cookie: string;
  dbName: string;
  db: UserDatabase | null;
  sync: SyncController | null;
  online: boolean;
  /** Aborted when the device goes offline: requests in flight fail as a dropped connection does. */
  cut: AbortController;
  /** Push answers to drop after the server has applied them (a lost answer: the client must retry). */
  loseAnswers: number;
  /** Behind the proxy: the backend its latest live stream and its latest accepted push went to. */
  streamOn: number | null;
  pushedTo: number | null;
}

/** What the operations meant the final state to be (the ledger), per document. */
export interface Ledger {
  posts: Map<string, { author: number; content: string; category: string; isUrgent: boolean; deleted: boolean }>;
  comments: Map<string, { author: number; postId: string; content: string; deleted: boolean }>;
  reactions: Map<string, { user: number; postId: string; type: string | null }>;
  conversations: Set<string>;
  /** Per conversation, message ids in the order they were written. */
  messages: Map<string, { sender: number; conversationId: string; content: string }>;
  acknowledged: Set<string>;
  /** Creation order of every document, so choices do not depend on ids. */
  order: Map<string, number>;
}
