DROP INDEX "events_pending_idx";--> statement-breakpoint
ALTER TABLE "events" DROP COLUMN "fanned_out_at";