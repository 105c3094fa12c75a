-- Passages hash-partitioned by account into 16 tables, each with its own HNSW graph. A search walks only its account's partition, where the account's rows are several times denser than in one graph of every account, so the account filter throws far fewer neighbours away. Every unique key includes account_id, as PostgreSQL requires of a partitioned table; a meeting belongs to one account, so (meeting_id, position) stays unique. LIKE keeps the columns as they are, including a vector dimension other than the default and a reindex's shadow columns (whose index the reindex rebuilds with IF NOT EXISTS).
CREATE TABLE "passages_by_account" (LIKE "passages" INCLUDING DEFAULTS) PARTITION BY HASH ("account_id");--> statement-breakpoint
CREATE TABLE "passages_p0" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 0);--> statement-breakpoint
CREATE TABLE "passages_p1" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 1);--> statement-breakpoint
CREATE TABLE "passages_p2" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 2);--> statement-breakpoint
CREATE TABLE "passages_p3" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 3);--> statement-breakpoint
CREATE TABLE "passages_p4" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 4);--> statement-breakpoint
CREATE TABLE "passages_p5" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 5);--> statement-breakpoint
CREATE TABLE "passages_p6" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 6);--> statement-breakpoint
CREATE TABLE "passages_p7" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 7);--> statement-breakpoint
CREATE TABLE "passages_p8" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 8);--> statement-breakpoint
CREATE TABLE "passages_p9" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 9);--> statement-breakpoint
CREATE TABLE "passages_p10" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 10);--> statement-breakpoint
CREATE TABLE "passages_p11" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 11);--> statement-breakpoint
CREATE TABLE "passages_p12" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 12);--> statement-breakpoint
CREATE TABLE "passages_p13" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 13);--> statement-breakpoint
CREATE TABLE "passages_p14" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 14);--> statement-breakpoint
CREATE TABLE "passages_p15" PARTITION OF "passages_by_account" FOR VALUES WITH (MODULUS 16, REMAINDER 15);--> statement-breakpoint
INSERT INTO "passages_by_account" SELECT * FROM "passages";--> statement-breakpoint
DROP TABLE "passages";--> statement-breakpoint
ALTER TABLE "passages_by_account" RENAME TO "passages";--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_id_account_id_pk" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_meeting_id_meetings_id_fk" FOREIGN KEY ("meeting_id") REFERENCES "public"."meetings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "passages" ADD CONSTRAINT "passages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "passages_meeting_position_key" ON "passages" USING btree ("meeting_id","position","account_id");--> statement-breakpoint
CREATE INDEX "passages_account_idx" ON "passages" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "passages_embedding_hnsw" ON "passages" USING hnsw ("embedding" vector_cosine_ops) WITH (m=24,ef_construction=128);
