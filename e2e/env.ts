import path from 'node:path';

export const E2E_DATA_DIR = path.resolve('.tmp', 'e2e-data');
export const E2E_ADMIN = { email: 'sysadmin@care.example', password: 'Sys!Admin2026' };

/**
 * The port of the journeys' test clock (e2e/serve.ts), written here once it listens: PUT /offset?ms=N moves the
 * server's clock N ms ahead of the real one, 0 puts it back (docs/testing-offline.md, "The server's clock").
 */
export const E2E_CLOCK_PORT_FILE = path.join(E2E_DATA_DIR, 'test-clock.port');
