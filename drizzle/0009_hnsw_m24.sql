-- HNSW indexes built with m 24 and ef_construction 128: better recall at the same search cost (see server/search/embedding-dimensions.ts and docs/performance.md). IF EXISTS: a database in the middle of a dimension change has none.
DROP INDEX IF EXISTS "meetings_summary_embedding_hnsw";--> statement-breakpoint
DROP INDEX IF EXISTS "passages_embedding_hnsw";--> statement-breakpoint
CREATE INDEX "meetings_summary_embedding_hnsw" ON "meetings" USING hnsw ("summary_embedding" vector_cosine_ops) WITH (m=24,ef_construction=128);--> statement-breakpoint
CREATE INDEX "passages_embedding_hnsw" ON "passages" USING hnsw ("embedding" vector_cosine_ops) WITH (m=24,ef_construction=128);
