import { listDatabases } from './database-name';

/**
 * The browser's list of databases, asked for by the first module of the app's script to run: a new device's feed
 * preview waits for it (does this device hold the user's store?). Asked for at the end of the script, as before, it
 * was answered only once the whole script had been evaluated, tens of milliseconds later on a slow phone.
 */
export const startupListing = listDatabases();
// Unread when nobody is signed in; where read, a failure counts as "holds a store".
startupListing?.catch(() => {});
