-- "Forgot password?" queues its email instead of sending it in the request, so the answer takes as long whether or not the address has an account: a job may name the address asked for and no account. The worker looks the account up, sends the link, and deletes the row.
ALTER TABLE "jobs" ALTER COLUMN "account_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "email" text;