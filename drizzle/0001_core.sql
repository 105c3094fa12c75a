CREATE TABLE "accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"password_hash" text,
	"plan" text DEFAULT 'free' NOT NULL,
	"daily_limit" integer,
	"early_access" boolean DEFAULT false NOT NULL,
	"last_meeting_created_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_plan_check" CHECK ("accounts"."plan" in ('free', 'pro', 'enterprise'))
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text DEFAULT '' NOT NULL,
	"form" text DEFAULT 'A' NOT NULL,
	"key_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"last_four" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "api_keys_form_check" CHECK ("api_keys"."form" in ('A', 'B'))
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"meeting_id" uuid,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"fanned_out_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "meetings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"title" text,
	"platform" text NOT NULL,
	"language" text DEFAULT 'en' NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"ended_at" timestamp (3) with time zone,
	"duration_seconds" integer,
	"created_at" timestamp (3) with time zone NOT NULL,
	"transcribed_at" timestamp (3) with time zone,
	"generate_summary" boolean DEFAULT true NOT NULL,
	"summary" jsonb,
	"summary_text" text,
	"summary_at" timestamp (3) with time zone,
	CONSTRAINT "meetings_platform_check" CHECK ("meetings"."platform" in ('meet', 'zoom', 'teams', 'phone', 'microphone'))
);
--> statement-breakpoint
CREATE TABLE "rate_limit_counters" (
	"bucket" text NOT NULL,
	"window_start" timestamp (3) with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "rate_limit_counters_bucket_window_start_pk" PRIMARY KEY("bucket","window_start")
);
--> statement-breakpoint
CREATE TABLE "transcript_segments" (
	"meeting_id" uuid NOT NULL,
	"sequence" integer NOT NULL,
	"speaker" text NOT NULL,
	"content" text NOT NULL,
	"start_time" double precision NOT NULL,
	"end_time" double precision,
	CONSTRAINT "transcript_segments_meeting_id_sequence_pk" PRIMARY KEY("meeting_id","sequence")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meetings" ADD CONSTRAINT "meetings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transcript_segments" ADD CONSTRAINT "transcript_segments_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts" USING btree (lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "events_pending_idx" ON "events" USING btree ("created_at") WHERE "events"."fanned_out_at" is null;--> statement-breakpoint
CREATE INDEX "events_meeting_idx" ON "events" USING btree ("meeting_id");--> statement-breakpoint
CREATE UNIQUE INDEX "meetings_account_created_key" ON "meetings" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "meetings_notes_idx" ON "meetings" USING btree ("account_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "meetings"."transcribed_at" is not null;--> statement-breakpoint
CREATE INDEX "meetings_notes_platform_idx" ON "meetings" USING btree ("account_id","platform","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "meetings"."transcribed_at" is not null;