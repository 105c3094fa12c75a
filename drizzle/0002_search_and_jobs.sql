CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" uuid NOT NULL,
	"meeting_id" uuid,
	"due_at" timestamp (3) with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"last_error" text,
	"failed_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "passages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"meeting_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"text" text NOT NULL,
	"first_sequence" integer NOT NULL,
	"last_sequence" integer NOT NULL,
	"embedding" vector(384),
	"model" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "summary_embedding" vector(384);--> statement-breakpoint
ALTER TABLE "meetings" ADD COLUMN "summary_embedding_model" text;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "jobs_due_idx" ON "jobs" USING btree ("due_at") WHERE "jobs"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "jobs_meeting_idx" ON "jobs" USING btree ("meeting_id");--> statement-breakpoint
CREATE UNIQUE INDEX "passages_meeting_position_key" ON "passages" USING btree ("meeting_id","position");--> statement-breakpoint
CREATE INDEX "passages_account_idx" ON "passages" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "passages_embedding_hnsw" ON "passages" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "meetings_summary_embedding_hnsw" ON "meetings" USING hnsw ("summary_embedding" vector_cosine_ops);