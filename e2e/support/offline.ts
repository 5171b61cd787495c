/**
 * The offline-testing kit (docs/testing-offline.md): every way a journey takes a device or its server away. It
 * depends on playwright-core only, so journeys (@playwright/test) and plain scripts use the same primitives.
 */

/** A real lost connection and its faults (off/on, serverDown, slow, loseNextAnswer, hangNext): setOffline alone leaks. */
export { startWifi, type Hang, type Wifi } from './wifi';
/** An offline reload that reports offline at once on Chromium 150, as a phone without Wi-Fi does (decision 102). */
export { reloadOffline } from './wifi';
/** The app ready to work offline: its service worker installed and controlling the page. */
export { waitForServiceWorker } from './wifi';
/** An installed app closed and reopened with its storage kept, as a phone keeps it (decision 114). */
export {
  closeInstalledApp,
  newProfileDir,
  openInstalledApp,
  removeProfileDir,
  type InstalledApp,
  type InstalledAppOptions,
} from './installed-app';
/** A server a journey may SIGKILL and restart on the same data, which the suite's own server must never be. */
export { startKillableServer, type KillableServer } from './killable-server';
/** What the server finally holds, read from its database: every offline write is asserted there exactly once. */
export { serverRows } from './server-rows';
/** What a device still holds that anyone could read after a session ends: nothing of the user's words. */
export { readableOnDevice } from './device-storage';
