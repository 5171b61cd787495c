import path from 'node:path';

/** The first journeys' server's port; worker N has its own server on the port N after it (playwright.config.ts). */
export const E2E_BASE_PORT = Number(process.env.E2E_PORT ?? 3100);

/**
 * Which journeys' server this process belongs to: a Playwright worker's parallel index (each worker has a server of
 * its own, so an urgent post to all staff never covers the screens of a journey running beside it), or the server's.
 */
export const E2E_SERVER_INDEX = Number(process.env.E2E_SERVER_INDEX ?? process.env.TEST_PARALLEL_INDEX ?? 0);

/** The data folder of this process's journeys' server. */
export const E2E_DATA_DIR = path.resolve('.tmp', `e2e-data-${E2E_SERVER_INDEX}`);

/** The built client that server serves, a copy of dist/ of its own: a journey may put a next version there. */
export const E2E_CLIENT_DIR = path.resolve('.tmp', `e2e-client-${E2E_SERVER_INDEX}`);
export const E2E_ADMIN = { email: 'sysadmin@care.example', password: 'Sys!Admin2026' };

/**
 * The port of the journeys' test clock (e2e/serve.ts), written here once it listens: PUT /offset?ms=N moves the
 * server's clock N ms ahead of the real one, 0 puts it back (docs/testing-offline.md, "The server's clock").
 */
export const E2E_CLOCK_PORT_FILE = path.join(E2E_DATA_DIR, 'test-clock.port');
