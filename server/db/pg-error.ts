/** PostgreSQL's SQLSTATE codes the service tells apart. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

/**
 * Whether an error, or one it wraps (drizzle wraps the driver's), carries this SQLSTATE: both
 * postgres.js and PGlite put it in `code`.
 */
export function hasPgCode(err: unknown, code: string): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}
