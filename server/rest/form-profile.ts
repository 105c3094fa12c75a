import type { FormName } from '../domain';
import type { AppError, ErrorCode } from '../errors';

/** A JSON Schema object, as OpenAPI 3.1 writes one. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What an API form says, as opposed to what it serves (its router, in ./rest-form.ts): how it
 * writes errors, how its documents and the settings app describe it, what its webhook secrets
 * look like. Pure data and pure functions with no server dependency, so Next's proxy and the
 * browser can use it as well as the server.
 */
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

/** Random bytes from Web Crypto (Node 20 and browsers alike). */
export function randomBytes(n: number): Uint8Array {
  return globalThis.crypto.getRandomValues(new Uint8Array(n));
}
