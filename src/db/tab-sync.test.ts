import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SyncCollection } from '../../schema/sync';
import { connectTabs, type LeaderSync, type TabSync } from './tab-sync';

const NAMES: readonly SyncCollection[] = ['posts', 'comments'];
const opened: TabSync[] = [];

afterEach(() => {
  opened.splice(0).forEach((tab) => tab.close());
});

/** One tab's end of the channel; Node's BroadcastChannel, like a browser's, never delivers to its sender. */
function openTab(name = 'staff-portal-sync|test'): TabSync {
  const tab = connectTabs(new BroadcastChannel(name), NAMES);
  opened.push(tab);
  return tab;
}

/** A leading tab's own replication, whose first sync ends when the test says so. */
function replication() {
  const ends = new Map<string, () => void>();
  const promise = (key: string) => new Promise<void>((resolve) => ends.set(key, resolve));
  const own: LeaderSync = {
    collectionSynced: vi.fn((name: SyncCollection) => promise(name)),
    initialSyncDone: promise('all'),
    awaitInSync: vi.fn(() => promise('in sync')),
    resync: vi.fn(),
  };
  return { own, end: (key: string) => ends.get(key)!() };
}

/** Whether a promise has settled once the channel had time to deliver. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  return done;
}

describe('tabs of one browser and its one replication (decision 115)', () => {
  it("tells a tab that does not lead when each collection's first sync and the whole first sync are over", async () => {
    const leader = openTab();
    const follower = openTab();
    const { own, end } = replication();
    leader.lead(own);
    expect(await settled(follower.collectionSynced('posts'))).toBe(false);
    end('posts');
    expect(await settled(follower.collectionSynced('posts'))).toBe(true);
    expect(await settled(follower.collectionSynced('comments'))).toBe(false);
    expect(await settled(follower.initialSyncDone)).toBe(false);
    end('comments');
    end('all');
    expect(await settled(follower.initialSyncDone)).toBe(true);
  });

  it('tells a tab opened after the first sync at once', async () => {
    const leader = openTab();
    const { own, end } = replication();
    leader.lead(own);
    end('posts');
    end('comments');
    end('all');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = openTab();
    expect(await settled(late.initialSyncDone)).toBe(true);
    expect(await settled(late.collectionSynced('comments'))).toBe(true);
  });

  it("passes a tab's resync and in-sync questions to the leading tab, and only to it", async () => {
    const leader = openTab();
    const follower = openTab();
    const other = openTab();
    const { own, end } = replication();
    leader.lead(own);
    follower.resync();
    await vi.waitFor(() => expect(own.resync).toHaveBeenCalledTimes(1));
    const inSync = follower.awaitInSync();
    expect(await settled(inSync)).toBe(false);
    end('in sync');
    expect(await settled(inSync)).toBe(true);
    // Each question is answered once, by the leading tab only.
    other.resync();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(own.resync).toHaveBeenCalledTimes(2);
  });

  it('keeps the tabs of different databases apart', async () => {
    const leader = openTab('staff-portal-sync|one');
    const stranger = openTab('staff-portal-sync|two');
    const { own, end } = replication();
    leader.lead(own);
    end('posts');
    end('comments');
    end('all');
    expect(await settled(stranger.initialSyncDone)).toBe(false);
  });
});
