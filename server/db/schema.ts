import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  customType,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  vector,
} from 'drizzle-orm/pg-core';
import {
  DEFAULT_FORM,
  EVENT_TYPES,
  FORM_NAMES,
  PLANS,
  PLATFORMS,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../domain';

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

// Every timestamp is kept at millisecond precision, as the API writes it.
const ms = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });

/** The vector dimension the migrations create; `npm run reindex` can move a database to another. */
export const EMBEDDING_DIMENSIONS = 384;

/**
 * How many hash partitions of `passages` (by account) migration 0011 creates. Fixed once created:
 * changing it means a migration that moves every row.
 */
export const PASSAGE_PARTITIONS = 16;

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash'),
    plan: text('plan', { enum: PLANS }).notNull().default('free'),
    /** Enterprise accounts' own daily request limit; null means the default (100,000). */
    dailyLimit: integer('daily_limit'),
    earlyAccess: boolean('early_access').notNull().default(false),
    /**
     * When the address came to count as the owner's: an emailed link opened, a password reset, an
     * OAuth provider that vouches for it, or an operator who made the account. Null until then,
     * and no notice (such as an endpoint turned inactive) goes to an unverified address.
     */
    emailVerifiedAt: ms('email_verified_at'),
    /**
     * When the owner last proved control of the mailbox by opening a link we emailed to it (a
     * verification or a reset link). Operator status needs this proof; nothing else vouches for it.
     */
    mailboxProvenAt: ms('mailbox_proven_at'),
    /** When the owner asked for early access (the operators were emailed); null if never. */
    earlyAccessRequestedAt: ms('early_access_requested_at'),
    /** Last created_at handed to a meeting of this account: keeps them distinct. */
    lastMeetingCreatedAt: ms('last_meeting_created_at'),
    createdAt: ms('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('accounts_email_key').on(sql`lower(${t.email})`),
    check('accounts_plan_check', sql`${t.plan} in ('free', 'pro', 'enterprise')`),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull().default(''),
    form: text('form', { enum: FORM_NAMES }).notNull().default(DEFAULT_FORM),
    /** Hex SHA-256 of the whole key; the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    lastFour: text('last_four').notNull(),
    createdAt: ms('created_at').notNull().defaultNow(),
    lastUsedAt: ms('last_used_at'),
    revokedAt: ms('revoked_at'),
    /**
     * The key stops working at this instant (an expiry chosen at creation, or
     * the end of a roll's overlap); null never expires.
     */
    expiresAt: ms('expires_at'),
    /** The key that replaced this one when it was rolled; its overlap ends at expires_at. */
    rolledTo: uuid('rolled_to'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId, t.createdAt),
    check('api_keys_form_check', sql`${t.form} in (${sql.raw(FORM_NAMES.map((n) => `'${n}'`).join(', '))})`),
  ],
);

/** A recorded meeting. It is a note (visible through /v1) once transcribed_at is set. */
export const meetings = pgTable(
  'meetings',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    title: text('title'),
    platform: text('platform', { enum: PLATFORMS }).notNull(),
    language: text('language').notNull().default('en'),
    startedAt: ms('started_at').notNull(),
    endedAt: ms('ended_at'),
    durationSeconds: integer('duration_seconds'),
    createdAt: ms('created_at').notNull(),
    transcribedAt: ms('transcribed_at'),
    generateSummary: boolean('generate_summary').notNull().default(true),
    /** The Summary object, or null until one exists. */
    summary: jsonb('summary'),
    /** Recorder-supplied plain-text summary (Form A), if any. */
    summaryText: text('summary_text'),
    summaryAt: ms('summary_at'),
    /** Form B search matches the query against this; null until a summary is embedded. */
    summaryEmbedding: vector('summary_embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    summaryEmbeddingModel: text('summary_embedding_model'),
    /** The text-search configuration of the meeting's language (server/search/text-search.ts). */
    summarySearchConfig: text('summary_search_config').notNull().default('simple'),
    /** The summary's words (those Form B search matches) for full-text search, in that configuration. */
    summarySearchVector: tsvector('summary_search_vector'),
  },
  (t) => [
    // One account's meetings never share a created_at, so a timestamp cursor is exact.
    uniqueIndex('meetings_account_created_key').on(t.accountId, t.createdAt),
    index('meetings_notes_idx')
      .on(t.accountId, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.transcribedAt} is not null`),
    index('meetings_notes_platform_idx')
      .on(t.accountId, t.platform, t.createdAt.desc(), t.id.desc())
      .where(sql`${t.transcribedAt} is not null`),
    check('meetings_platform_check', sql`${t.platform} in ('meet', 'zoom', 'teams', 'phone', 'microphone')`),
    // Built as server/search/embedding-dimensions.ts's HNSW_BUILD says.
    index('meetings_summary_embedding_hnsw')
      .using('hnsw', t.summaryEmbedding.op('vector_cosine_ops'))
      .with({ m: 24, ef_construction: 128 }),
    index('meetings_summary_search_vector_gin').using('gin', t.summarySearchVector),
  ],
);

export const transcriptSegments = pgTable(
  'transcript_segments',
  {
    meetingId: uuid('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    sequence: integer('sequence').notNull(),
    speaker: text('speaker').notNull(),
    content: text('content').notNull(),
    startTime: doublePrecision('start_time').notNull(),
    endTime: doublePrecision('end_time'),
  },
  (t) => [primaryKey({ columns: [t.meetingId, t.sequence] })],
);

/**
 * The event outbox: written in the same transaction as the change it reports, together with
 * the event's webhook deliveries, so an event and its deliveries exist exactly when its change does.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The meeting the event is about; null only for a test event (settings app's "Send test event"). */
    meetingId: uuid('meeting_id').references(() => meetings.id, { onDelete: 'cascade' }),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    /** The envelope's data object as it was at the moment of the event. */
    data: jsonb('data').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    index('events_meeting_idx').on(t.meetingId),
    // The Events API's pages: an account's events newest first, sought by (created_at, id).
    index('events_account_created_idx').on(t.accountId, t.createdAt, t.id),
    // Events past their retention are deleted oldest first.
    index('events_created_idx').on(t.createdAt),
  ],
);

/** Fixed-window request counters shared by every instance (docs/rules.md#rate-limits). */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    bucket: text('bucket').notNull(),
    windowStart: ms('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.windowStart] })],
);

/**
 * Requests made with one key, per UTC day, and in the latest clock minute seen
 * that day (minute_start, minute_requests): one row per key and day, written in the statement
 * that authenticates the request. Rows older than the chart's reach are pruned as a key starts
 * a new day.
 */
export const apiKeyUsage = pgTable(
  'api_key_usage',
  {
    keyId: uuid('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    requests: integer('requests').notNull(),
    minuteStart: ms('minute_start').notNull(),
    minuteRequests: integer('minute_requests').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day] })],
);

/**
 * A window of consecutive transcript segments, embedded for Form A search. Neighbouring
 * passages share a segment, so no sentence is lost at a border.
 *
 * Hash-partitioned by account into PASSAGE_PARTITIONS tables (migration 0011),
 * each with its own HNSW graph: a search walks only its partition's graph, where its account's
 * rows are several times denser than in one graph of every account, so far fewer neighbours are
 * read and thrown away by the account filter. drizzle-kit cannot declare partitioning; the
 * migration does, and every unique key includes the partition key, as PostgreSQL requires.
 */
export const passages = pgTable(
  'passages',
  {
    id: uuid('id').notNull(),
    meetingId: uuid('meeting_id')
      .notNull()
      .references(() => meetings.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    text: text('text').notNull(),
    firstSequence: integer('first_sequence').notNull(),
    lastSequence: integer('last_sequence').notNull(),
    /** Null only while `npm run reindex` is moving the database to another dimension. */
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    /**
     * The vectors of segments first_sequence..last_sequence, one after another, by the same model,
     * as little-endian float32: a hit's start_time is its best-matching segment, chosen without
     * embedding at search time. Bytes rather than real[]: a search reads these for 2 × limit
     * passages, and formatting ~50,000 floats as text took longer than the search. Null for
     * passages indexed before migration 0005, and for a few seconds after a new note's passages
     * (then the segment sharing most words with the query stands in).
     */
    segmentEmbeddings: bytea('segment_embeddings'),
    model: text('model').notNull(),
    /** The text-search configuration of the meeting's language (server/search/text-search.ts). */
    textSearchConfig: text('text_search_config').notNull().default('simple'),
    /** The passage's words for full-text search, read in that configuration. */
    searchVector: tsvector('search_vector'),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.accountId] }),
    // A meeting belongs to one account, so this is still "one passage per meeting and position".
    uniqueIndex('passages_meeting_position_key').on(t.meetingId, t.position, t.accountId),
    index('passages_account_idx').on(t.accountId),
    // Built as server/search/embedding-dimensions.ts's HNSW_BUILD says.
    index('passages_embedding_hnsw')
      .using('hnsw', t.embedding.op('vector_cosine_ops'))
      .with({ m: 24, ef_construction: 128 }),
    index('passages_search_vector_gin').using('gin', t.searchVector),
  ],
);

export const JOB_KINDS = ['embed_transcript', 'embed_summary', 'summarize', 'send_password_reset'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * Background work (docs/rules.md#background-work): rows with a due time, claimed with FOR UPDATE
 * SKIP LOCKED and a lease by the in-process worker or the cron route. Deleting a meeting deletes
 * its queued work. A meeting's jobs name the account and the meeting; a password-reset email names
 * only the address asked for (whether it has an account is the job's to find out, after the
 * answer).
 */
export const jobs = pgTable(
  'jobs',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind', { enum: JOB_KINDS }).notNull(),
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    meetingId: uuid('meeting_id').references(() => meetings.id, { onDelete: 'cascade' }),
    /** send_password_reset: the address as asked for; the row is deleted once the job is over. */
    email: text('email'),
    dueAt: ms('due_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lockedUntil: ms('locked_until'),
    lastError: text('last_error'),
    failedAt: ms('failed_at'),
    createdAt: ms('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('jobs_due_idx').on(t.dueAt).where(sql`${t.failedAt} is null`),
    index('jobs_meeting_idx').on(t.meetingId),
  ],
);

/**
 * When a dispatcher last claimed a job of each account: among accounts with as many jobs in
 * flight, the one served least recently goes next, so accounts take turns for the queue.
 */
export const jobTurns = pgTable('job_turns', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  servedAt: ms('served_at').notNull(),
});

/** A customer's webhook endpoint. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: text('events').array().$type<WebhookEvent[]>().notNull(),
    /** The form of the request that created it: decides the secret's format. */
    form: text('form', { enum: FORM_NAMES }).notNull(),
    /** What the owner calls it (settings app); not part of the /v1 surface. */
    description: text('description').notNull().default(''),
    /**
     * The signing secret as shown at creation, encrypted at rest (server/webhooks/secret-box.ts:
     * `enc:v1:<key id>:…`). Never returned again.
     */
    secret: text('secret').notNull(),
    /** After a rotation: the replaced secret (encrypted), still signing until previous_secret_expires_at. */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: ms('previous_secret_expires_at'),
    active: boolean('active').notNull().default(true),
    /** Events before this moment are never delivered: creation, or the last re-enable. */
    activeSince: ms('active_since').notNull(),
    deactivatedAt: ms('deactivated_at'),
    /** The delivery whose fourth failure deactivated the endpoint (the Inactive banner names it). */
    deactivatedByDeliveryId: uuid('deactivated_by_delivery_id'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('webhook_endpoints_account_url_key').on(t.accountId, t.url),
    index('webhook_endpoints_account_idx').on(t.accountId, t.createdAt.desc(), t.id.desc()),
  ],
);

/**
 * What is stored. The settings app shows one more state, `retrying`: pending with an attempt made
 * (server/webhooks/delivery-state.ts), so the dispatcher's claim stays one indexed condition.
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * One event for one endpoint: its payload is serialised once, so every attempt sends the same
 * bytes, and its id is the X-Service-Delivery header, stable across retries.
 */
export const deliveries = pgTable(
  'deliveries',
  {
    id: uuid('id').primaryKey(),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    /** The event name this endpoint subscribed to (meeting.completed stands for meeting.transcribed). */
    event: text('event', { enum: WEBHOOK_EVENTS }).notNull(),
    /**
     * The meeting of the event, for a delivery made when the event happened: its first attempt
     * waits for the first attempts of the same meeting's earlier events to the same endpoint.
     * Null for a test event and for a resent or recovered delivery, which wait for nothing.
     */
    meetingId: uuid('meeting_id'),
    payload: text('payload').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attemptsMade: integer('attempts_made').notNull().default(0),
    nextAttemptAt: ms('next_attempt_at'),
    lockedUntil: ms('locked_until'),
    /** Set with status 'cancelled': 'endpoint_deactivated' (deleting an endpoint deletes its deliveries). */
    cancelledReason: text('cancelled_reason'),
    /** The delivery that re-sent this one (Resend, Recover): a recovery never queues it twice. */
    resentAs: uuid('resent_as'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    index('deliveries_endpoint_created_idx').on(t.endpointId, t.createdAt.desc(), t.id.desc()),
    index('deliveries_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('deliveries_endpoint_idx').on(t.endpointId, t.status),
    index('deliveries_event_idx').on(t.eventId),
    // The first attempts still to make, per endpoint and meeting, in the order of the events.
    index('deliveries_first_attempts_idx')
      .on(t.endpointId, t.meetingId, t.createdAt)
      .where(sql`${t.status} = 'pending' and ${t.attemptsMade} = 0 and ${t.meetingId} is not null`),
  ],
);

/** Every attempt made, with exactly what was sent and what came back. */
export const deliveryAttempts = pgTable(
  'delivery_attempts',
  {
    id: uuid('id').primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    endpointId: uuid('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    statusCode: integer('status_code'),
    success: boolean('success').notNull(),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    requestHeaders: jsonb('request_headers').notNull(),
    responseBody: text('response_body'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('delivery_attempts_delivery_attempt_key').on(t.deliveryId, t.attempt),
    index('delivery_attempts_endpoint_idx').on(t.endpointId, t.createdAt.desc(), t.id.desc()),
  ],
);

/** Emails to account owners: sent through SMTP when configured, and always kept here. */
export const emails = pgTable(
  'emails',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    /** Null for a message that carries a link proving control of the address: it lives only in the mailbox. */
    body: text('body'),
    /** 'smtp' once sent, 'log' without SMTP, 'failed' when the SMTP server refused it. */
    transport: text('transport').notNull(),
    error: text('error'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [index('emails_account_idx').on(t.accountId, t.createdAt.desc())],
);

/**
 * A signed-in browser session. The next-auth JWT carries its id and every request checks it,
 * so signing out (or "sign out everywhere") ends the session on the server, not just in the
 * browser's cookie jar.
 */
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
    revokedAt: ms('revoked_at'),
  },
  (t) => [index('auth_sessions_account_idx').on(t.accountId)],
);

/**
 * Idempotency-Key of the recorder's POST calls: the first answer to a key is kept for 24 hours
 * and replayed for a retry with the same request; another request under the same key conflicts.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of method, path and body. */
    fingerprint: text('fingerprint').notNull(),
    /** Null while the first request with this key is still being processed. */
    status: integer('status'),
    responseBody: text('response_body'),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.key] }),
    index('idempotency_keys_created_idx').on(t.createdAt),
  ],
);

export const ACCOUNT_TOKEN_PURPOSES = ['verify_email', 'reset_password'] as const;
export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number];

/**
 * The emailed links' tokens. Only a SHA-256 of the token is stored (like API keys); a token is good
 * once (used_at) and until expires_at, and for the address it was sent to.
 */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ACCOUNT_TOKEN_PURPOSES }).notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The address the link went to: a verification proves this address, not a later one. */
    email: text('email').notNull(),
    createdAt: ms('created_at').notNull(),
    expiresAt: ms('expires_at').notNull(),
    usedAt: ms('used_at'),
  },
  (t) => [
    uniqueIndex('account_tokens_token_hash_key').on(t.tokenHash),
    index('account_tokens_account_idx').on(t.accountId, t.purpose),
    check('account_tokens_purpose_check', sql`${t.purpose} in ('verify_email', 'reset_password')`),
  ],
);

/**
 * What operators (the console, the admin CLI) did to accounts: who, when, what changed.
 * Kept when the actor's own account goes (actor_email stays).
 */
export const accountAuditLog = pgTable(
  'account_audit_log',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** The operator's address, or "admin CLI (user@host)". */
    actor: text('actor').notNull(),
    actorAccountId: uuid('actor_account_id').references(() => accounts.id, { onDelete: 'set null' }),
    /** early_access.grant, early_access.revoke, plan.change, daily_limit.change, account.create, key.create, key.revoke */
    action: text('action').notNull(),
    /** The change: {from, to} for a setting, {key_id, form} for a key. */
    detail: jsonb('detail').notNull(),
    createdAt: ms('created_at').notNull(),
  },
  (t) => [
    index('account_audit_log_account_idx').on(t.accountId, t.createdAt.desc()),
    index('account_audit_log_created_idx').on(t.createdAt.desc()),
  ],
);
