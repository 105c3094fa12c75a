import { afterAll, describe, expect, it } from 'vitest';
import { emptyDatabases, MIGRATION_TAGS } from '../support/empty-databases';
import { runScript } from '../support/run-command';

// Migrations can be a release step (`npm run db:migrate`) that instances started with
// MIGRATE_ON_START=false only check, on either database. On PostgreSQL they also apply once however
// many processes start at once, and go through DATABASE_URL_UNPOOLED when it is set:
// migrations.postgres.test.ts.

const SCRIPT_TIMEOUT = 120_000;
const databases = emptyDatabases();
afterAll(() => databases.dropAll());

describe('migrations', () => {
  it(
    'with MIGRATE_ON_START=false nothing migrates but `npm run db:migrate`: the CLI refuses a database that lacks migrations, naming the command, and works once it ran',
    async () => {
      const env = { ...(await databases.scriptEnv()), MIGRATE_ON_START: 'false' };
      const refused = await runScript(
        'scripts/admin.ts',
        ['account:create', '--email', 'ops@example.com'],
        env,
      );
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(
        `The database lacks ${MIGRATION_TAGS.length} migrations (${MIGRATION_TAGS.join(', ')}) and MIGRATE_ON_START=false: run \`npm run db:migrate\``,
      );
      expect(refused.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);

      const migrated = await runScript('scripts/migrate.ts', [], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout).toContain(`: applied ${MIGRATION_TAGS.join(', ')}`);

      const created = await runScript(
        'scripts/admin.ts',
        ['account:create', '--email', 'ops@example.com'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ email: 'ops@example.com' });
    },
    SCRIPT_TIMEOUT,
  );
});
