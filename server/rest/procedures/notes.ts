import { z } from 'zod';
import { deleteNoteOrThrow } from '../../notes/delete-note';
import { getNoteOrThrow } from '../../notes/get-note';
import { listNotes, type ListNotesQuery } from '../../notes/list-notes';
import type { NotePage, NoteRecord } from '../../notes/note-record';
import { uuidPathParam } from '../../http/params';
import { restProcedure } from '../../http/openapi-trpc';
import { documentedOutput } from './documented-output';

// GET /v1/notes, GET /v1/notes/{id}, DELETE /v1/notes/{id}: one implementation for both forms;
// each form passes its schemas and presenters. The reads' response schemas document them and
// type their presenters; they are not re-run over every response (./documented-output.ts).

export interface NotesForm<TList, TNote> {
  listNotesInput: z.ZodType<ListNotesQuery>;
  noteList: z.ZodType<TList>;
  note: z.ZodType<TNote>;
  presentNoteList(page: NotePage): TList;
  presentNote(note: NoteRecord): TNote;
}

export const listNotesProcedure = <L, N>(form: NotesForm<L, N>) =>
  documentedOutput(
    form.noteList,
    restProcedure
      .meta({
        openapi: {
          method: 'GET',
          path: '/notes',
          summary: 'List notes',
          description: "The account's notes, newest first.",
          tags: ['Notes'],
        },
        rest: { errors: ['invalid_request', 'validation_error'] },
      })
      .input(form.listNotesInput)
      .query(async ({ ctx, input }) => form.presentNoteList(await listNotes(ctx.db, ctx.accountId, input))),
  );

export const getNoteProcedure = <L, N>(form: NotesForm<L, N>) =>
  documentedOutput(
    form.note,
    restProcedure
      .meta({
        openapi: { method: 'GET', path: '/notes/{id}', summary: 'Get a note', tags: ['Notes'] },
        rest: { errors: ['invalid_request', 'not_found'] },
      })
      .input(z.object({ id: uuidPathParam }))
      .query(async ({ ctx, input }) =>
        form.presentNote(await getNoteOrThrow(ctx.db, ctx.accountId, input.id)),
      ),
  );

export const deleteNoteProcedure = () =>
  restProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/notes/{id}',
        summary: 'Delete a note',
        description: 'Removes the note permanently, with its transcript and everything derived from it.',
        tags: ['Notes'],
      },
      rest: { status: 204, errors: ['invalid_request', 'not_found'] },
    })
    .input(z.object({ id: uuidPathParam }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await deleteNoteOrThrow(ctx.db, ctx.accountId, input.id);
      return undefined;
    });
