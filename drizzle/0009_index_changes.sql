CREATE TABLE "index_changes" (
	"seq" bigint PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"block_hash" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- An index built before the log starts it at its checkpoint: the log's last entry is always the checkpoint.
INSERT INTO "index_changes" ("seq", "kind", "from_block", "to_block", "block_hash") SELECT 1, 'advance', "indexed_through_block", "indexed_through_block", "block_hash" FROM "indexer_checkpoint" WHERE "id" = 'main';
