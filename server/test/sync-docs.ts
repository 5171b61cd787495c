import { randomUUID } from 'node:crypto';
import type { PostDoc } from '../../schema/sync';

/** A post as a device pushes it (schema/sync.ts), with `overrides` over plain defaults; written when created. */
export function newPostDoc(overrides: Partial<PostDoc> = {}): PostDoc {
  const at = overrides.createdAt ?? Date.now();
  return {
    id: randomUUID(),
    authorId: null,
    content: 'Written offline',
    category: 'company_announcement',
    isUrgent: false,
    houseTags: [],
    audienceHouses: [],
    requiresConfirmation: false,
    confirmBy: null,
    images: [],
    attachments: [],
    reactions: {},
    createdAt: at,
    writtenAt: at,
    updatedAt: at,
    editedBy: null,
    mentions: [],
    _deleted: false,
    ...overrides,
  };
}
