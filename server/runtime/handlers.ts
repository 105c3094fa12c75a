import { getDatabase } from '../db';
import { createAppHandlers, type AppHandlers } from '../http/app-handlers';

// The handlers Next's route files serve, built once per process on the configured database.
const holder = globalThis as typeof globalThis & { __meetingNotesHandlers?: AppHandlers };

export function appHandlers(): AppHandlers {
  holder.__meetingNotesHandlers ??= createAppHandlers({ getDatabase });
  return holder.__meetingNotesHandlers;
}
