// One instance of the service in a process of its own, as `npm start` runs it minus Next: the
// runtime's start (tracing, database, worker, shutdown on SIGTERM/SIGINT) and its handlers on a
// socket. Configured by its environment like the server; prints `listening <url>` on stdout.
// test/operations/shutdown.test.ts starts and stops these.
import { serveNode } from '../../server/http/serve-node';
import { routeFor } from '../../server/runtime/app-handlers';
import { appHandlers } from '../../server/runtime/handlers';
import { startServer } from '../../server/runtime/start-server';

await startServer();
const handlers = appHandlers();
const server = await serveNode((path) => routeFor(handlers, path));
process.stdout.write(`listening ${server.url}\n`);
