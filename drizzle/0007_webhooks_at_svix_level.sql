ALTER TABLE "deliveries" ADD COLUMN "cancelled_reason" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "resent_as" uuid;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "description" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "previous_secret_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "deactivated_by_delivery_id" uuid;--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_created_idx" ON "deliveries" USING btree ("endpoint_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
UPDATE "deliveries" SET "cancelled_reason" = 'endpoint_deactivated' WHERE "status" = 'cancelled';
