// The service's vocabulary: the names the database stores and every layer speaks (plans, API forms,
// meeting platforms, event types). A leaf module: it imports nothing, so any layer, and the browser, may use it.

export const PLANS = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
export const FORM_NAMES = ['A', 'B'] as const;
export type FormName = (typeof FORM_NAMES)[number];
/** The form of a key created without one, and of an answer given before a key names one. */
export const DEFAULT_FORM: FormName = 'A';
/** A form's name as a header, query or flag gives it (any case, spaces around), or undefined. */
export function parseFormName(raw: string): FormName | undefined {
  const value = raw.trim().toUpperCase();
  return (FORM_NAMES as readonly string[]).includes(value) ? (value as FormName) : undefined;
}
export const PLATFORMS = ['meet', 'zoom', 'teams', 'phone', 'microphone'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** Events recorded for a meeting (the events table). */
export const EVENT_TYPES = ['meeting.started', 'meeting.transcribed', 'summary.ready'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Names an endpoint can subscribe to that stand for another event type. */
export const EVENT_ALIASES = { 'meeting.completed': 'meeting.transcribed' } as const satisfies Record<
  string,
  EventType
>;
export type EventAlias = keyof typeof EVENT_ALIASES;

/** Events a webhook endpoint can subscribe to: every type and alias, in the order a meeting produces them. */
export const WEBHOOK_EVENTS = [
  'meeting.started',
  'meeting.transcribed',
  'meeting.completed',
  'summary.ready',
] as const satisfies readonly (EventType | EventAlias)[];
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The event type a subscription name stands for. */
export const eventTypeOf = (name: WebhookEvent): EventType =>
  name in EVENT_ALIASES ? EVENT_ALIASES[name as EventAlias] : (name as EventType);

/** The initial attempt plus three retries; the dispatcher and the settings app both count to it. */
export const WEBHOOK_MAX_ATTEMPTS = 4;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A UUID in its canonical 8-4-4-4-12 spelling, any case (ids, cursors, lookups). */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

/** The longest description an endpoint keeps (settings app; not part of /v1). */
export const WEBHOOK_DESCRIPTION_MAX = 200;
