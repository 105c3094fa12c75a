import type { ApiPrincipal } from '../../accounts/authenticate-api-key';
import type { Db } from '../../db/client';
import type { Services } from '../../services';
import type { SearchQuery } from '../procedures/search';
import { clockMinuteWindow, type RateLimitWindow } from '../../rate-limit/consume-rate-limit';
import { getNoteProcedure, listNotesProcedure } from '../procedures/notes';
import type { RestForm } from '../rest-form';
import { router } from '../trpc';
import { presentErrorB } from './errors';
import { searchSummaries } from '../../search/search-summaries';
import { searchNotesProcedure } from '../procedures/search';
import { presentNote, presentNoteList, presentSearchResults } from './present';
import { listNotesInputB, NoteB, NoteListB, SearchResultsB, searchNotesInputB } from './schemas';

const notes = { listNotesInput: listNotesInputB, noteList: NoteListB, note: NoteB, presentNoteList, presentNote };

// Form B matches the query against meeting summaries (SPEC 4.4, D7).
const search = {
  searchNotesInput: searchNotesInputB,
  searchResults: SearchResultsB,
  searchNotes: async (db: Db, services: Services, accountId: string, { q, limit }: SearchQuery) =>
    presentSearchResults(await searchSummaries(db, services, accountId, q, limit)),
};

// Form B offers no note deletion (SPEC 4.3): DELETE /v1/notes/{id} is an unknown route here.
export const formBRouter = router({
  searchNotes: searchNotesProcedure(search),
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
