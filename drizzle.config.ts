import { defineConfig } from 'drizzle-kit';

// Generation only needs the schema; migrations are applied by the app at start-up.
export default defineConfig({
  dialect: 'postgresql',
  schema: './server/db/schema/index.ts',
  out: './drizzle',
});
