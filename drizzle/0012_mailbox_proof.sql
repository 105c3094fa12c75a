ALTER TABLE "emails" ALTER COLUMN "body" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "mailbox_proven_at" timestamp (3) with time zone;--> statement-breakpoint
-- A stored message that carries a verification or reset link keeps only its subject: the link
-- proves control of the address, so it lives only in the mailbox it was sent to.
UPDATE "emails" SET "body" = NULL WHERE "body" ~ '/(verify-email|reset-password)\?token=';
