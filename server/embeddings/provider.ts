/**
 * Turns texts into vectors (docs/rules.md#embeddings). Every stored vector records the provider's model name, so a
 * change of model is visible and `npm run reindex` can bring old vectors up to date.
 */
export interface EmbeddingProvider {
  /** Stored with every vector, e.g. "local-lexical-v1" or "text-embedding-3-small". */
  readonly model: string;
  /** Which provider this is (EMBEDDINGS_PROVIDER), for traces and the readiness check. */
  readonly provider?: string;
  /** The length of every vector it returns; equals the database's dimension. */
  readonly dimensions: number;
  /**
   * How many background embedding jobs it serves at once to advantage (the semantic model's
   * threads); one when unset.
   */
  readonly parallelism?: number;
  /**
   * Why the provider could not embed now, or null: a cheap look (files, configuration), never a
   * load of the model or a call to a remote service. Absent: nothing to check.
   */
  unavailableReason?(): string | null;
  /** One L2-normalised vector per text, in the order given. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  /**
   * A request is waiting for these vectors (a search's query): where the provider queues work of
   * its own (the semantic model's thread), they go before background indexing.
   */
  urgent?: boolean;
}
