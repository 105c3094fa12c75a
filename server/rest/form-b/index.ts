import { ACCOUNT_DAY, KEY_MINUTE, windowsOf } from '../../rate-limit/plan-limits';
import type { Db } from '../../db/client';
import type { Services } from '../../services';
import type { SearchQuery } from '../procedures/search';
import { getNoteProcedure, listNotesProcedure } from '../procedures/notes';
import type { RestForm } from '../forms';
import { router } from '../../http/openapi-trpc';
import { getEventProcedure, listEventsProcedure } from '../procedures/events';
import { listEventsInput, presentEvent, presentEventList } from '../event-schemas';
import { profileB } from './profile';
import {
  SAMPLE_EVENT,
  SAMPLE_EVENT_PAGE,
  SAMPLE_DELIVERY_ATTEMPT,
  SAMPLE_ENDPOINT,
  SAMPLE_NOTE,
  SAMPLE_NOTE_PAGE,
} from '../openapi-samples';
import { searchSummaries } from '../../search/search-summaries';
import { searchNotesProcedure } from '../procedures/search';
import {
  createEndpointProcedure,
  deleteEndpointProcedure,
  listDeliveriesProcedure,
  listEndpointsProcedure,
} from '../procedures/webhooks';
import { createEndpointInput } from '../webhook-params';
import {
  presentCreatedEndpoint,
  presentDeletedEndpoint,
  presentDeliveryPage,
  presentEndpointList,
  presentNote,
  presentNoteList,
  presentPlatformB,
  presentSearchResults,
} from './present';
import {
  CreatedEndpointB,
  DeletedEndpointB,
  DeliveryPageB,
  EndpointListB,
  listDeliveriesInputB,
  listNotesInputB,
  NoteB,
  NoteListB,
  PLATFORM_FILTER_B,
  PLATFORMS_B,
  SearchResultsB,
  searchNotesInputB,
} from './schemas';

const notes = {
  listNotesInput: listNotesInputB,
  noteList: NoteListB,
  note: NoteB,
  presentNoteList,
  presentNote,
};

// created_before is inclusive in Form B, as for notes.
const events = { listEventsInput: listEventsInput(true) };

// Form B matches the query against meeting summaries.
const search = {
  searchNotesInput: searchNotesInputB,
  searchResults: SearchResultsB,
  searchNotes: async (db: Db, services: Services, accountId: string, { q, limit, filters }: SearchQuery) =>
    presentSearchResults(await searchSummaries(db, services, accountId, q, limit, filters)),
};

const webhooks = {
  name: 'B' as const,
  createEndpointInput,
  createdEndpoint: CreatedEndpointB,
  endpointList: EndpointListB,
  // Form B answers a delete with 200 {"success":true}.
  deletedEndpoint: DeletedEndpointB,
  deleteStatus: 200 as const,
  presentCreatedEndpoint,
  presentEndpointList,
  presentDeletedEndpoint,
};

const deliveries = {
  listDeliveriesInput: listDeliveriesInputB,
  deliveryPage: DeliveryPageB,
  presentDeliveryPage,
};

// Form B offers no note deletion: DELETE /v1/notes/{id} is an unknown route here (a 404).
export const formBRouter = router({
  searchNotes: searchNotesProcedure(search),
  listNotes: listNotesProcedure(notes),
  getNote: getNoteProcedure(notes),
  createEndpoint: createEndpointProcedure(webhooks),
  listEndpoints: listEndpointsProcedure(webhooks),
  deleteEndpoint: deleteEndpointProcedure(webhooks),
  listEvents: listEventsProcedure(events),
  getEvent: getEventProcedure(),
  // The delivery log is Form B's; in Form A the route does not exist (a 404).
  listDeliveries: listDeliveriesProcedure(deliveries),
});

// 100 requests per key per clock minute, on every plan, and the account's daily limit, whatever
// the form (docs/rules.md#rate-limits). The key's minute comes first: its headers are the form's.
const rateLimits = [KEY_MINUTE, ACCOUNT_DAY];

// The document's examples, written by this form's presenters.
const openApiExamples = () => ({
  'GET /notes': presentNoteList(SAMPLE_NOTE_PAGE),
  'GET /notes/{id}': presentNote(SAMPLE_NOTE),
  'GET /notes/search': presentSearchResults([SAMPLE_NOTE]),
  'POST /webhooks': presentCreatedEndpoint({
    ...SAMPLE_ENDPOINT,
    form: 'B',
    secret: profileB.newWebhookSecret(),
  }),
  'GET /events': presentEventList(SAMPLE_EVENT_PAGE),
  'GET /events/{id}': presentEvent(SAMPLE_EVENT),
  'GET /webhooks': presentEndpointList([{ ...SAMPLE_ENDPOINT, form: 'B' }]),
  'DELETE /webhooks/{id}': presentDeletedEndpoint(),
  'GET /webhooks/{id}/deliveries': presentDeliveryPage({
    attempts: [SAMPLE_DELIVERY_ATTEMPT],
    hasMore: true,
  }),
});

export const formB: RestForm = {
  ...profileB,
  router: formBRouter,
  rateLimits,
  rateLimitWindows: windowsOf(rateLimits),
  openApiExamples,
  // No microphone: such notes are phone notes; created_before is inclusive, as for notes.
  notesVocabulary: {
    platforms: PLATFORMS_B,
    platformsOf: (platform) => PLATFORM_FILTER_B[platform as (typeof PLATFORMS_B)[number]] ?? [],
    presentPlatform: presentPlatformB,
    createdBeforeInclusive: true,
  },
};
