import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/api/root';

/** A key as the settings app lists it (keys.list): never its plaintext or hash. */
export type ApiKey = inferRouterOutputs<AppRouter>['keys']['list'][number];
export type KeyUsage = NonNullable<ApiKey['usage']>;

/** `mnk_3fZq…9aB2`: all that is kept of a key besides its hash. */
export const maskedKey = (key: Pick<ApiKey, 'prefix' | 'lastFour'>) => `${key.prefix}…${key.lastFour}`;
