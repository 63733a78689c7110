-- The append-only tables become partitioned by block range (server/db/partitions.ts; the
-- indexer creates a partition per 1,000,000 blocks as it reaches them). Stored rows are not
-- moved: the old table becomes one partition from the lowest block to the first multiple of
-- 1,000,000 above its last row; attaching it reads it once to check that bound. A table with no
-- rows is dropped instead. Names of keys and indexes stay on the partitioned tables.
ALTER TABLE "trades" RENAME TO "trades_legacy";--> statement-breakpoint
ALTER TABLE "trades_legacy" RENAME CONSTRAINT "trades_block_number_log_index_pk" TO "trades_legacy_pk";--> statement-breakpoint
ALTER INDEX "trades_token_order_idx" RENAME TO "trades_legacy_token_order_idx";--> statement-breakpoint
ALTER INDEX "trades_token_time_idx" RENAME TO "trades_legacy_token_time_idx";--> statement-breakpoint
ALTER INDEX "trades_trader_idx" RENAME TO "trades_legacy_trader_idx";--> statement-breakpoint
CREATE TABLE "trades" (LIKE "trades_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("block_number");--> statement-breakpoint
ALTER TABLE "trades" ADD CONSTRAINT "trades_block_number_log_index_pk" PRIMARY KEY("block_number","log_index");--> statement-breakpoint
CREATE INDEX "trades_token_order_idx" ON "trades" USING btree ("token_address","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "trades_token_time_idx" ON "trades" USING btree ("token_address","block_timestamp");--> statement-breakpoint
CREATE INDEX "trades_trader_idx" ON "trades" USING btree ("trader","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);--> statement-breakpoint
ALTER TABLE "chain_events" RENAME TO "chain_events_legacy";--> statement-breakpoint
ALTER TABLE "chain_events_legacy" RENAME CONSTRAINT "chain_events_block_number_log_index_pk" TO "chain_events_legacy_pk";--> statement-breakpoint
ALTER INDEX "chain_events_token_order_idx" RENAME TO "chain_events_legacy_token_order_idx";--> statement-breakpoint
CREATE TABLE "chain_events" (LIKE "chain_events_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("block_number");--> statement-breakpoint
ALTER TABLE "chain_events" ADD CONSTRAINT "chain_events_block_number_log_index_pk" PRIMARY KEY("block_number","log_index");--> statement-breakpoint
CREATE INDEX "chain_events_token_order_idx" ON "chain_events" USING btree ("token_address","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);--> statement-breakpoint
DO $$
DECLARE
  t text;
  top bigint;
BEGIN
  FOREACH t IN ARRAY ARRAY['trades', 'chain_events'] LOOP
    EXECUTE format('SELECT max(block_number) FROM %I', t || '_legacy') INTO top;
    IF top IS NULL THEN
      EXECUTE format('DROP TABLE %I', t || '_legacy');
    ELSE
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%s)',
        t, t || '_legacy', (top / 1000000 + 1) * 1000000);
    END IF;
  END LOOP;
END $$;
