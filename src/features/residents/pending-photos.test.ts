import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { firstValueFrom } from 'rxjs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { FieldMerge } from '../../../schema/sync';
import { ApiError, NetworkError } from '../../lib/api';
import {
  discardPendingPhoto,
  pendingPhotos$,
  savePendingPhoto,
  sendPendingPhotos,
  setPendingPhotosEnvironment,
  type PendingPhoto,
  type PhotoSendDeps,
} from './pending-photos';

const photo = (residentId: string, name: string, userId = 'me') => ({
  residentId,
  userId,
  baseUpdatedAt: 1000,
  name,
  blob: new Blob(['png'], { type: 'image/png' }),
});

/** A server that stores photos by key, can be offline, refuses some and answers a merge for others. */
function fakeServer(answers: Record<string, () => FieldMerge | undefined> = {}) {
  const stored: string[] = [];
  const merges: [string, FieldMerge][] = [];
  let offline = false;
  const deps: PhotoSendDeps = {
    userId: 'me',
    async send(sent: PendingPhoto) {
      if (offline) throw new NetworkError(new TypeError('Failed to fetch'));
      const answer = answers[sent.name]?.();
      stored.push(sent.name);
      return answer;
    },
    onMerge: (residentId, merge) => merges.push([residentId, merge]),
  };
  return { deps, stored, merges, setOffline: (value: boolean) => (offline = value) };
}

const waiting = (userId = 'me') => firstValueFrom(pendingPhotos$(userId));

describe('residents photos waiting on the device', () => {
  beforeEach(() => {
    setPendingPhotosEnvironment({ indexedDB: new IDBFactory(), IDBKeyRange });
  });

  it('keeps only the last photo chosen for a resident, each with its own key', async () => {
    const first = await savePendingPhoto(photo('r1', 'first.png'));
    const second = await savePendingPhoto(photo('r1', 'second.png'));
    await savePendingPhoto(photo('r2', 'other.png'));
    await savePendingPhoto(photo('r1', 'colleague.png', 'them'));
    expect(first.id).not.toBe(second.id);
    expect((await waiting()).map((p) => p.name)).toEqual(['second.png', 'other.png']);
    expect((await waiting('them')).map((p) => p.name)).toEqual(['colleague.png']);
  });

  it('sends the user’s photos oldest first, stops while offline and keeps them, and never sends another user’s', async () => {
    const server = fakeServer();
    await savePendingPhoto(photo('r1', 'a.png'));
    await savePendingPhoto(photo('r2', 'b.png'));
    await savePendingPhoto(photo('r3', 'theirs.png', 'them'));
    server.setOffline(true);
    await sendPendingPhotos(server.deps);
    expect(await waiting()).toHaveLength(2);
    server.setOffline(false);
    await sendPendingPhotos(server.deps);
    expect(server.stored).toEqual(['a.png', 'b.png']);
    expect(await waiting()).toEqual([]);
    expect((await waiting('them')).map((p) => p.name)).toEqual(['theirs.png']);
  });

  it('keeps a refused photo with the reason until the user dismisses it, and sends the rest', async () => {
    const server = fakeServer({
      'bomb.png': () => {
        throw new ApiError(
          413,
          'Too large',
          'x',
          'The picture is too large: at most 40 megapixels.',
          'payload_too_large',
        );
      },
      'archived.png': () => {
        throw new ApiError(404, 'Not Found', 'x', 'Resident not found', 'not_found');
      },
    });
    await savePendingPhoto(photo('r1', 'bomb.png'));
    await savePendingPhoto(photo('r2', 'archived.png'));
    await savePendingPhoto(photo('r3', 'fine.png'));
    await sendPendingPhotos(server.deps);
    expect(server.stored).toEqual(['fine.png']);
    const left = await waiting();
    expect(left.map((p) => [p.name, p.error])).toEqual([
      ['bomb.png', 'The picture is too large: at most 40 megapixels.'],
      ['archived.png', 'This resident was archived, so the new photo could not be saved.'],
    ]);
    // A refused photo is not sent again by itself.
    await sendPendingPhotos(server.deps);
    expect(server.stored).toEqual(['fine.png']);
    await discardPendingPhoto(left[0].id);
    expect(await waiting()).toHaveLength(1);
  });

  it('stops at a server fault or a finished session, and tells of a merge with someone else’s change', async () => {
    let fault = true;
    const server = fakeServer({
      'a.png': () => {
        if (fault) throw new ApiError(503, 'Unavailable', 'x', undefined, undefined);
        return { mine: ['photoUrl'], theirs: ['medication'], both: [] };
      },
    });
    await savePendingPhoto(photo('r1', 'a.png'));
    await sendPendingPhotos(server.deps);
    expect(await waiting()).toMatchObject([{ name: 'a.png', error: null }]);
    fault = false;
    await sendPendingPhotos(server.deps);
    expect(await waiting()).toEqual([]);
    expect(server.merges).toEqual([['r1', { mine: ['photoUrl'], theirs: ['medication'], both: [] }]]);
  });
});
