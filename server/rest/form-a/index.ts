import { ACCOUNT_DAY, windowsOf } from '../../rate-limit/plan-limits';
import { type Platform, PLATFORMS } from '../../domain';
import type { Db } from '../../db/client';
import type { Services } from '../../services';
import type { SearchQuery } from '../procedures/search';
import { deleteNoteProcedure, getNoteProcedure, listNotesProcedure } from '../procedures/notes';
import type { RestForm } from '../forms';
import { router } from '../../http/openapi-trpc';
import { getEventProcedure, listEventsProcedure } from '../procedures/events';
import { listEventsInput, presentEvent, presentEventList } from '../event-schemas';
import { profileA } from './profile';
import {
  SAMPLE_EVENT,
  SAMPLE_EVENT_PAGE,
  SAMPLE_ENDPOINT,
  SAMPLE_NOTE,
  SAMPLE_NOTE_PAGE,
  SAMPLE_PASSAGE,
} from '../openapi-samples';
import { searchPassages } from '../../search/search-passages';
import { searchNotesProcedure } from '../procedures/search';
import {
  createEndpointProcedure,
  deleteEndpointProcedure,
  listEndpointsProcedure,
} from '../procedures/webhooks';
import { createEndpointInput } from '../webhook-params';
import { z } from 'zod';
import {
  presentCreatedEndpoint,
  presentEndpointList,
  presentNote,
  presentNoteList,
  presentSearchResults,
} from './present';
import {
  CreatedEndpointA,
  EndpointListA,
  listNotesInputA,
  NoteA,
  NoteListA,
  SearchResultsA,
  searchNotesInputA,
} from './schemas';

const notes = {
  listNotesInput: listNotesInputA,
  noteList: NoteListA,
  note: NoteA,
  presentNoteList,
  presentNote,
};

// created_before is exclusive in Form A, as for notes.
const events = { listEventsInput: listEventsInput(false) };

// Form A searches transcript passages.
const search = {
  searchNotesInput: searchNotesInputA,
  searchResults: SearchResultsA,
  searchNotes: async (db: Db, services: Services, accountId: string, { q, limit, filters }: SearchQuery) =>
    presentSearchResults(await searchPassages(db, services, accountId, q, limit, filters)),
};

const webhooks = {
  name: 'A' as const,
  createEndpointInput,
  createdEndpoint: CreatedEndpointA,
  endpointList: EndpointListA,
  // Form A answers a delete with 204 and no body.
  deletedEndpoint: z.void(),
  deleteStatus: 204 as const,
  presentCreatedEndpoint,
  presentEndpointList,
  presentDeletedEndpoint: () => undefined,
};

// /notes/search comes before /notes/{id}: the first route that matches a path wins.
export const formARouter = router({
  searchNotes: searchNotesProcedure(search),
  listNotes: listNotesProcedure(notes),
  getNote: getNoteProcedure(notes),
  deleteNote: deleteNoteProcedure(),
  createEndpoint: createEndpointProcedure(webhooks),
  listEndpoints: listEndpointsProcedure(webhooks),
  deleteEndpoint: deleteEndpointProcedure(webhooks),
  listEvents: listEventsProcedure(events),
  getEvent: getEventProcedure(),
});

// Per account per UTC day, by plan (docs/rules.md#rate-limits).
const rateLimits = [ACCOUNT_DAY];

// The document's examples, written by this form's presenters.
const openApiExamples = () => ({
  'GET /notes': presentNoteList(SAMPLE_NOTE_PAGE),
  'GET /notes/{id}': presentNote(SAMPLE_NOTE),
  'GET /notes/search': presentSearchResults([SAMPLE_PASSAGE]),
  'POST /webhooks': presentCreatedEndpoint({ ...SAMPLE_ENDPOINT, secret: profileA.newWebhookSecret() }),
  'GET /events': presentEventList(SAMPLE_EVENT_PAGE),
  'GET /events/{id}': presentEvent(SAMPLE_EVENT),
  'GET /webhooks': presentEndpointList([SAMPLE_ENDPOINT]),
});

export const formA: RestForm = {
  ...profileA,
  router: formARouter,
  rateLimits,
  rateLimitWindows: windowsOf(rateLimits),
  openApiExamples,
  // Every platform by its own name; created_before is exclusive, as for notes.
  notesVocabulary: {
    platforms: PLATFORMS,
    platformsOf: (platform) => [platform as Platform],
    presentPlatform: (platform) => platform,
    createdBeforeInclusive: false,
  },
};
