import { accountRouter } from './routers/account';
import { adminRouter } from './routers/admin';
import { keysRouter } from './routers/keys';
import { notesRouter } from './routers/notes';
import { webhooksRouter } from './routers/webhooks';
import { createCallerFactory, createUiRouter } from './trpc';

export const appRouter = createUiRouter({
  account: accountRouter,
  keys: keysRouter,
  webhooks: webhooksRouter,
  notes: notesRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
