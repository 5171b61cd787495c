/** Test fixtures: documents of the local database as its tests store them. */
import type { DirectoryUserLocal, PostLocal } from './collections';

/** A colleague in the staff directory, as the tests of the local database store one. */
export const colleague: DirectoryUserLocal = {
  id: 'user-2',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'staff',
  profileImageUrl: null,
  isActive: true,
  houses: [],
  type: 'employee',
  updatedAt: 1_700_000_000_000,
  localPending: false,
};

/** A post, not pending unless `fields` say so, with `fields` over plain defaults. */
export function storedPost(fields: Partial<PostLocal> & Pick<PostLocal, 'id'>): PostLocal {
  return {
    authorId: 'user-2',
    content: 'Fire drill at 3pm',
    category: 'company_announcement',
    isUrgent: false,
    houseTags: [],
    audienceHouses: [],
    images: [],
    attachments: [],
    reactions: {},
    createdAt: 1_700_000_000_000,
    // Written when it was created unless said otherwise, as the app's own inserts are.
    writtenAt: fields.createdAt ?? 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    editedBy: null,
    localPending: false,
    ...fields,
  };
}

/** The repository's one seeded generator, so a seed gives the same script on every machine (decision 134). */
export { seededRandom as prng } from '../../schema/seeded-random';
