import type { DirectoryUserDoc } from '../../../schema/sync';
import type { SyncHandler } from '../sync/sync.service';
import { listDirectoryDocsSince } from './users.service';

/** The staff directory replicates one way (pull only): colleagues' names, roles and pictures, no e-mail. */
export const usersSync: SyncHandler<DirectoryUserDoc> = {
  pull: async (deps, _actor, seq, id, limit) => await listDirectoryDocsSince(deps, seq, id, limit),
  sameForEveryone: true,
};
