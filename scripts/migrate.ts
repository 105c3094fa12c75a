// npm run db:migrate: applies pending migrations to the configured database (D21).
import { DatabaseInUseError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { EnvError } from '../server/env';

try {
  const database = await openConfiguredDatabase();
  console.log(
    `Migrated ${database.kind === 'pglite' ? `the embedded database in ${database.location}` : database.location}`,
  );
  await database.close();
} catch (err) {
  console.error(err instanceof EnvError || err instanceof DatabaseInUseError ? err.message : err);
  process.exit(1);
}
