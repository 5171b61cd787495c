import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Entry = { state: unknown; url: string };
type Listener = (event: { state: unknown }) => void;

/** A session history like a browser's: pushState is immediate, a traversal fires popstate a task later. */
class FakeHistory {
  entries: Entry[] = [{ state: { key: 'feed', idx: 0 }, url: '/' }];
  index = 0;
  listeners: Listener[] = [];

  get state(): unknown {
    return this.entries[this.index].state;
  }

  get url(): string {
    return this.entries[this.index].url;
  }

  pushState(state: unknown, _title: string, url?: string): void {
    this.entries.splice(this.index + 1);
    this.entries.push({ state, url: url ?? this.url });
    this.index += 1;
  }

  go(delta: number): void {
    setTimeout(() => {
      this.index = Math.max(0, Math.min(this.entries.length - 1, this.index + delta));
      for (const listener of this.listeners) listener({ state: this.state });
    });
  }
}

/** Lets traversals and the module's follow-up work finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

let history: FakeHistory;
let registerOverlay: (close: () => void) => () => void;

beforeEach(async () => {
  history = new FakeHistory();
  vi.stubGlobal('window', {
    history,
    addEventListener: (_type: string, listener: Listener) => history.listeners.push(listener),
  });
  // Fresh module state for each test: the module keeps the open overlays at its top level.
  vi.resetModules();
  ({ registerOverlay } = await import('./back-closes'));
});

afterEach(() => {
  vi.unstubAllGlobals();
});

/** An overlay that, like a component, unregisters itself when it closes. */
function openOverlay(name: string, closed: string[]): () => void {
  const unregister = registerOverlay(() => {
    closed.push(name);
    unregister();
  });
  return unregister;
}

describe('Back closes overlays (decision 128)', () => {
  it('gives each open overlay one entry, and Back closes the topmost first while the page stays', async () => {
    const closed: string[] = [];
    openOverlay('chat', closed);
    await settle();
    openOverlay('dialog', closed);
    await settle();
    expect(history.index).toBe(2);
    history.go(-1);
    await settle();
    expect(closed).toEqual(['dialog']);
    history.go(-1);
    await settle();
    expect(closed).toEqual(['dialog', 'chat']);
    expect(history.index).toBe(0);
    expect(history.url).toBe('/');
  });

  it('removes the entry of an overlay closed by its own button, without closing anything else', async () => {
    const closed: string[] = [];
    openOverlay('chat', closed);
    await settle();
    const unregister = openOverlay('dialog', closed);
    await settle();
    unregister();
    await settle();
    expect(history.index).toBe(1);
    expect(closed).toEqual([]);
  });

  it('hands the entry over when one overlay closes as another opens (a dialog opened from the menu)', async () => {
    const closed: string[] = [];
    const closeMenu = openOverlay('menu', closed);
    await settle();
    closeMenu();
    openOverlay('suggestion', closed);
    await settle();
    expect(history.entries).toHaveLength(2);
    expect(history.index).toBe(1);
    history.go(-1);
    await settle();
    expect(closed).toEqual(['suggestion']);
    expect(history.index).toBe(0);
  });

  it('does not pop a page a menu link opened, and Back from it steps over the menu entry left under it', async () => {
    const closed: string[] = [];
    const closeMenu = openOverlay('menu', closed);
    await settle();
    history.pushState({ key: 'residents', idx: 1 }, '', '/residents');
    closeMenu();
    await settle();
    expect(history.url).toBe('/residents');
    history.go(-1);
    await settle();
    expect(history.index).toBe(0);
    expect(closed).toEqual([]);
  });
});
