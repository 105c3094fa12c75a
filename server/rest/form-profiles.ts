import { FORM_NAMES, type FormName } from '../domain';
import type { AppError, ErrorCode } from '../errors';
import { profileA } from './form-a/profile';
import { profileB } from './form-b/profile';

// What each API form says, as opposed to what it serves (its router and rate limits, in
// ./forms.ts): how it writes errors, how its documents and the settings app describe it, what
// its webhook secrets look like. Pure data and pure functions with no server dependency, so
// Next's proxy and the browser can import this module as well as the server. The form folders
// import only types from here, so the registry below and the profiles never load in a cycle.

/** A JSON Schema object, as OpenAPI 3.1 writes one. */
export type JsonSchema = { [key: string]: unknown };

/** What one API form says. */
export interface FormProfile {
  name: FormName;
  /** How the settings app and the API reference name and describe the form. */
  about: {
    label: string;
    /** One line: its error shape and limits. */
    summary: string;
    /** One line: what its webhook secrets look like. */
    secretFormat: string;
  };
  /** The HTTP status of every error code in this form. */
  errorStatus: Record<ErrorCode, number>;
  /** An error as this form writes it. */
  presentError(err: AppError): { status: number; body: unknown };
  /** The JSON Schema of presentError's body, for the OpenAPI document. */
  errorSchema: JsonSchema;
  /**
   * The JSON Schema of an error body that carries one of these codes only, for one
   * status of one operation (a form without codes in its bodies answers errorSchema).
   */
  errorSchemaFor(codes: readonly ErrorCode[]): JsonSchema;
  /** The first paragraph of the form's OpenAPI document. */
  openApiDescription: string;
  /** A new webhook endpoint secret in this form's format. */
  newWebhookSecret(): string;
}

/**
 * The registry of what each form says; FORMS in ./forms.ts is the registry of what each serves.
 * Both are keyed by FormName, so the compiler refuses a form missing from either.
 */
export const FORM_PROFILES: Record<FormName, FormProfile> = { A: profileA, B: profileB };

/** The profiles in FormName order, for lists (the settings app's choices, the docs switch). */
export const formProfileList = (): FormProfile[] => FORM_NAMES.map((name) => FORM_PROFILES[name]);
