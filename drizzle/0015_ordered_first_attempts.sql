ALTER TABLE "deliveries" ADD COLUMN "meeting_id" uuid;--> statement-breakpoint
UPDATE "deliveries" d SET "meeting_id" = e."meeting_id" FROM "events" e WHERE e."id" = d."event_id" AND d."status" = 'pending' AND d."attempts_made" = 0 AND d."created_at" = e."created_at";--> statement-breakpoint
CREATE INDEX "deliveries_first_attempts_idx" ON "deliveries" USING btree ("endpoint_id","meeting_id","created_at") WHERE "deliveries"."status" = 'pending' and "deliveries"."attempts_made" = 0 and "deliveries"."meeting_id" is not null;
