import type { ApiPrincipal } from '../../accounts/authenticate-api-key';
import { utcDayWindow, type RateLimitWindow } from '../../rate-limit/consume-rate-limit';
import { deleteNoteProcedure, getNoteProcedure, listNotesProcedure } from '../procedures/notes';
import type { RestForm } from '../rest-form';
import { router } from '../trpc';
import { presentErrorA } from './errors';
import { presentNote, presentNoteList } from './present';
import { listNotesInputA, NoteA, NoteListA } from './schemas';

const notes = { listNotesInput: listNotesInputA, noteList: NoteListA, note: NoteA, presentNoteList, presentNote };

export const formARouter = router({
  listNotes: listNotesProcedure(notes),
  getNote: getNoteProcedure(notes),
  deleteNote: deleteNoteProcedure(),
});

// D14: per account per UTC day, by plan.
const DAILY_LIMITS = { free: 100, pro: 10_000 } as const;
const ENTERPRISE_DEFAULT = 100_000;

function rateLimitWindow(principal: ApiPrincipal, now: Date): RateLimitWindow {
  const { account } = principal;
  const limit = account.plan === 'enterprise' ? (account.dailyLimit ?? ENTERPRISE_DEFAULT) : DAILY_LIMITS[account.plan];
  return utcDayWindow(`account:${account.id}`, limit, now);
}

export const formA: RestForm = {
  name: 'A',
  router: formARouter,
  presentError: presentErrorA,
  rateLimitWindow,
};
