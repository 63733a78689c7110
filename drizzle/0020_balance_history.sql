-- Balance history (docs/decisions.md, "Holders at any block"). An index built before it has no
-- history of the blocks it holds: its checkpoint records where history starts (earlier blocks are
-- refused), its rows count as unchanged since block 0, and the journal's before-images of rows
-- written before it get the new columns' values, so a rollback can still restore them.
CREATE TABLE "balance_history" (
	"token_address" text NOT NULL,
	"wallet" text NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"balance" numeric(78, 0) NOT NULL,
	"kind" smallint NOT NULL,
	"segment" bigint NOT NULL
);
--> statement-breakpoint
DROP INDEX "balances_holders_idx";--> statement-breakpoint
ALTER TABLE "indexer_checkpoint" ADD COLUMN "balance_history_from_block" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "history_segment" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "history_countdown" integer DEFAULT 10000 NOT NULL;--> statement-breakpoint
ALTER TABLE "balances" ADD COLUMN "since_block" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "balance_history_holders_idx" ON "balance_history" USING btree ("token_address","segment","balance" DESC NULLS FIRST,"wallet" DESC NULLS FIRST,"from_block","to_block") WHERE "balance_history"."kind" = 0;--> statement-breakpoint
CREATE INDEX "balance_history_wallet_idx" ON "balance_history" USING btree ("wallet","token_address","from_block","to_block","balance");--> statement-breakpoint
CREATE INDEX "balance_history_to_idx" ON "balance_history" USING brin ("to_block");--> statement-breakpoint
CREATE INDEX "balances_holders_idx" ON "balances" USING btree ("token_address","balance" DESC NULLS FIRST,"wallet" DESC NULLS FIRST,"since_block") WHERE "balances"."kind" = 0;--> statement-breakpoint
UPDATE "indexer_checkpoint" SET "balance_history_from_block" = "indexed_through_block" + 1;--> statement-breakpoint
UPDATE "projection_journal" SET "before" = "before" || '{"since_block": 0}'::jsonb
WHERE "table_name" = 'balances' AND "before" IS NOT NULL AND "before" -> 'since_block' IS NULL;--> statement-breakpoint
UPDATE "projection_journal" SET "before" = "before" || '{"history_segment": 0, "history_countdown": 10000}'::jsonb
WHERE "table_name" = 'tokens' AND "before" IS NOT NULL AND "before" -> 'history_segment' IS NULL;
