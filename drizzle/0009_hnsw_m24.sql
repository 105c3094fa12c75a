-- Issue 14 item 6: HNSW indexes built with m 24 and ef_construction 128 (recall@10 0.982 instead of 0.962 at the same search cost on bench:search; see server/search/embedding-dimensions.ts). IF EXISTS: a database in the middle of a dimension change has none.
DROP INDEX IF EXISTS "meetings_summary_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "passages_embedding_hnsw";--> statement-breakpoint
CREATE INDEX "meetings_summary_embedding_hnsw" ON "meetings" USING hnsw ("summary_embedding" vector_cosine_ops) WITH (m=24,ef_construction=128);--> statement-breakpoint
CREATE INDEX "passages_embedding_hnsw" ON "passages" USING hnsw ("embedding" vector_cosine_ops) WITH (m=24,ef_construction=128);
