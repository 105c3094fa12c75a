CREATE TABLE "job_turns" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"served_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "job_turns" ADD CONSTRAINT "job_turns_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;