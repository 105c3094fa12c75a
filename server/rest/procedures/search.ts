import type { z } from 'zod';
import type { Db } from '../../db/client';
import type { Services } from '../../services';
import { restProcedure } from '../../http/openapi-trpc';
import { documentedOutput } from './documented-output';
import type { SearchFilters } from '../../notes/note-filters';

// GET /v1/notes/search: one procedure for both forms; each form says what it searches
// (Form A passages, Form B summaries) and how it writes the results.

export interface SearchQuery {
  q: string;
  limit: number;
  filters: SearchFilters;
}

export interface SearchForm<TResults> {
  searchNotesInput: z.ZodType<SearchQuery>;
  searchResults: z.ZodType<TResults>;
  searchNotes(db: Db, services: Services, accountId: string, query: SearchQuery): Promise<TResults>;
}

export const searchNotesProcedure = <R>(form: SearchForm<R>) =>
  documentedOutput(
    form.searchResults,
    restProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/notes/search',
          summary: 'Search notes',
          description: "Semantic search over the account's own notes.",
          tags: ['Notes'],
        },
        rest: { errors: ['invalid_request', 'validation_error'] },
      })
      .input(form.searchNotesInput)
      .query(({ ctx, input }) => form.searchNotes(ctx.db, ctx.services, ctx.accountId, input)),
  );
