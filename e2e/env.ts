import path from 'node:path';

export const E2E_DATA_DIR = path.resolve('.tmp', 'e2e-data');
export const E2E_ADMIN = { email: 'sysadmin@care.example', password: 'Sys!Admin2026' };
