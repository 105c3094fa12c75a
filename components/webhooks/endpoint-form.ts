/** A server message about an endpoint form, sorted to the field it is about. */
export interface EndpointFormErrors {
  url: string | null;
  events: string | null;
  description: string | null;
  /** Anything that belongs to no one field (the endpoint is gone, the network failed…). */
  other: string | null;
}

/**
 * The server's messages are readable already ("url must use https://", "An endpoint with
 * the url … is already registered", "Choose at least one event"); this puts each under its field
 * and writes "url" the way the form's label does.
 */
export function endpointFormErrors(message: string | null | undefined): EndpointFormErrors {
  const none = { url: null, events: null, description: null, other: null };
  if (!message) return none;
  const text = message.replace(/^url\b/, 'The URL').replace(/\bthe url\b/g, 'the URL');
  if (/\burl\b/i.test(message)) return { ...none, url: text };
  if (/\bdescription\b/i.test(message)) return { ...none, description: text };
  if (/\bevents?\b/i.test(message)) return { ...none, events: text };
  return { ...none, other: text };
}

/** The longest description the server keeps. */
export { WEBHOOK_DESCRIPTION_MAX as MAX_ENDPOINT_DESCRIPTION } from '@/server/domain';
