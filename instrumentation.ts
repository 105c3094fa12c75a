// Next calls register() once when a server starts: fail fast on bad configuration, open and
// migrate the database before the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServerOrExit } = await import('./server/runtime/start-server');
  await startServerOrExit();
}
