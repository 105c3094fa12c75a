// npm run db:migrate: applies pending migrations to the configured database, through
// DATABASE_URL_UNPOOLED when set. A release step: instances started with MIGRATE_ON_START=false
// then only check that it ran.
import { DatabaseInUseError } from '../server/db/client';
import { openConfiguredDatabase } from '../server/db';
import { EnvError, getEnv } from '../server/env';

try {
  const database = await openConfiguredDatabase({ migrate: true });
  const applied = database.migrations?.applied ?? [];
  const through = getEnv().DATABASE_URL_UNPOOLED ? ' through DATABASE_URL_UNPOOLED' : '';
  console.log(
    `Migrated ${database.kind === 'pglite' ? `the embedded database in ${database.location}` : database.location}${through}: ${
      applied.length > 0 ? `applied ${applied.join(', ')}` : 'nothing pending'
    }`,
  );
  await database.close();
} catch (err) {
  console.error(err instanceof EnvError || err instanceof DatabaseInUseError ? err.message : err);
  process.exit(1);
}
