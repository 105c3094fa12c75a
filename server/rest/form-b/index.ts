import type { ApiPrincipal } from '../../accounts/authenticate-api-key';
import { clockMinuteWindow, type RateLimitWindow } from '../../rate-limit/consume-rate-limit';
import { getNoteProcedure, listNotesProcedure } from '../procedures/notes';
import type { RestForm } from '../rest-form';
import { router } from '../trpc';
import { presentErrorB } from './errors';
import { presentNote, presentNoteList } from './present';
import { listNotesInputB, NoteB, NoteListB } from './schemas';

const notes = { listNotesInput: listNotesInputB, noteList: NoteListB, note: NoteB, presentNoteList, presentNote };

// Form B offers no note deletion (SPEC 4.3): DELETE /v1/notes/{id} is an unknown route here.
export const formBRouter = router({
  listNotes: listNotesProcedure(notes),
  getNote: getNoteProcedure(notes),
});

// D14: 100 requests per key per clock minute, on every plan.
function rateLimitWindow(principal: ApiPrincipal, now: Date): RateLimitWindow {
  return clockMinuteWindow(`key:${principal.key.id}`, 100, now);
}

export const formB: RestForm = {
  name: 'B',
  router: formBRouter,
  presentError: presentErrorB,
  rateLimitWindow,
};
