import { defineConfig } from 'drizzle-kit';

/** PostgreSQL migrations, generated from the tables derived from server/db/tables.ts (decision 152). */
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/pg/tables.ts',
  out: './server/db/pg/migrations',
});
