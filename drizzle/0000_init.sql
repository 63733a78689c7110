CREATE TABLE "chain_events" (
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"transaction_hash" text NOT NULL,
	"transaction_index" integer NOT NULL,
	"log_index" integer NOT NULL,
	"token_address" text NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "chain_events_block_number_log_index_pk" PRIMARY KEY("block_number","log_index")
);
--> statement-breakpoint
CREATE TABLE "indexer_checkpoint" (
	"id" text PRIMARY KEY NOT NULL,
	"chain_id" integer NOT NULL,
	"indexed_through_block" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recent_blocks" (
	"number" bigint PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"parent_hash" text NOT NULL,
	"timestamp" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "metadata_drafts" (
	"id" text PRIMARY KEY NOT NULL,
	"creator" text,
	"name" text NOT NULL,
	"symbol" text NOT NULL,
	"initial_supply" numeric(78, 0) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"website_url" text,
	"x_url" text,
	"telegram_url" text,
	"discord_url" text,
	"image_key" text NOT NULL,
	"metadata_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"bound_token_address" text,
	"bound_transaction_hash" text,
	"bound_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "stored_objects" (
	"key" text PRIMARY KEY NOT NULL,
	"sha256" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "creators" (
	"address" text PRIMARY KEY NOT NULL,
	"tokens_launched" integer DEFAULT 0 NOT NULL,
	"tokens_graduated" integer DEFAULT 0 NOT NULL,
	"first_launch_at" bigint NOT NULL,
	"last_launch_at" bigint NOT NULL,
	"total_volume" numeric(78, 0) DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_exclusions" (
	"token_address" text PRIMARY KEY NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "token_search_terms" (
	"term" text NOT NULL,
	"token_address" text NOT NULL,
	"kind" smallint NOT NULL,
	CONSTRAINT "token_search_terms_token_address_term_kind_pk" PRIMARY KEY("token_address","term","kind")
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"address" text PRIMARY KEY NOT NULL,
	"curve_address" text NOT NULL,
	"creator" text NOT NULL,
	"name" text NOT NULL,
	"symbol" text NOT NULL,
	"name_search" text NOT NULL,
	"symbol_search" text NOT NULL,
	"decimals" smallint DEFAULT 18 NOT NULL,
	"total_supply" numeric(78, 0) NOT NULL,
	"metadata_hash" text NOT NULL,
	"created_block" bigint NOT NULL,
	"created_block_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"created_transaction_hash" text NOT NULL,
	"created_transaction_index" integer NOT NULL,
	"created_log_index" integer NOT NULL,
	"lifecycle" text DEFAULT 'curve' NOT NULL,
	"virtual_token_reserve" numeric(78, 0) NOT NULL,
	"virtual_reserve" numeric(78, 0) NOT NULL,
	"real_token_reserve" numeric(78, 0) NOT NULL,
	"real_reserve" numeric(78, 0) NOT NULL,
	"graduation_threshold" numeric(78, 0) NOT NULL,
	"curve_supply" numeric(78, 0) NOT NULL,
	"protocol_fee_bps" integer DEFAULT 0 NOT NULL,
	"creator_fee_bps" integer DEFAULT 0 NOT NULL,
	"progress_bps" integer DEFAULT 0 NOT NULL,
	"pool_address" text,
	"graduated_block" bigint,
	"graduated_at" bigint,
	"graduated_transaction_hash" text,
	"graduation_token_amount" numeric(78, 0),
	"graduation_reserve_amount" numeric(78, 0),
	"burned_amount" numeric(78, 0) DEFAULT 0 NOT NULL,
	"current_price" numeric(78, 0) DEFAULT 0 NOT NULL,
	"market_cap" numeric(78, 0) DEFAULT 0 NOT NULL,
	"fully_diluted_value" numeric(78, 0) DEFAULT 0 NOT NULL,
	"volume_24h" numeric(78, 0) DEFAULT 0 NOT NULL,
	"trades_24h" integer DEFAULT 0 NOT NULL,
	"traders_24h" integer DEFAULT 0 NOT NULL,
	"trending_score" double precision DEFAULT 0 NOT NULL,
	"trade_count" integer DEFAULT 0 NOT NULL,
	"total_volume" numeric(78, 0) DEFAULT 0 NOT NULL,
	"holders" integer DEFAULT 0 NOT NULL,
	"last_trade_at" bigint,
	"last_trade_source" text,
	"excluded" boolean DEFAULT false NOT NULL,
	"draft_id" text,
	"has_links" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "balances" (
	"token_address" text NOT NULL,
	"wallet" text NOT NULL,
	"balance" numeric(78, 0) NOT NULL,
	"kind" smallint DEFAULT 0 NOT NULL,
	CONSTRAINT "balances_token_address_wallet_pk" PRIMARY KEY("token_address","wallet")
);
--> statement-breakpoint
CREATE TABLE "candles" (
	"token_address" text NOT NULL,
	"interval_seconds" integer NOT NULL,
	"bucket_start" bigint NOT NULL,
	"open" numeric(78, 0) NOT NULL,
	"high" numeric(78, 0) NOT NULL,
	"low" numeric(78, 0) NOT NULL,
	"close" numeric(78, 0) NOT NULL,
	"volume" numeric(78, 0) NOT NULL,
	"trades" integer NOT NULL,
	"last_block_number" bigint NOT NULL,
	"last_log_index" integer NOT NULL,
	CONSTRAINT "candles_token_address_interval_seconds_bucket_start_pk" PRIMARY KEY("token_address","interval_seconds","bucket_start")
);
--> statement-breakpoint
CREATE TABLE "trades" (
	"block_number" bigint NOT NULL,
	"block_hash" text NOT NULL,
	"block_timestamp" bigint NOT NULL,
	"transaction_hash" text NOT NULL,
	"transaction_index" integer NOT NULL,
	"log_index" integer NOT NULL,
	"token_address" text NOT NULL,
	"trader" text NOT NULL,
	"side" text NOT NULL,
	"source" text NOT NULL,
	"token_amount" numeric(78, 0) NOT NULL,
	"reserve_amount" numeric(78, 0) NOT NULL,
	"curve_value" numeric(78, 0) NOT NULL,
	"protocol_fee" numeric(78, 0) NOT NULL,
	"creator_fee" numeric(78, 0) NOT NULL,
	"price" numeric(78, 0) NOT NULL,
	CONSTRAINT "trades_block_number_log_index_pk" PRIMARY KEY("block_number","log_index")
);
--> statement-breakpoint
CREATE INDEX "chain_events_token_order_idx" ON "chain_events" USING btree ("token_address","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "metadata_drafts_hash_idx" ON "metadata_drafts" USING btree ("metadata_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "metadata_drafts_bound_token_idx" ON "metadata_drafts" USING btree ("bound_token_address") WHERE "metadata_drafts"."bound_token_address" is not null;--> statement-breakpoint
CREATE INDEX "token_search_terms_prefix_idx" ON "token_search_terms" USING btree ("term" text_pattern_ops,"token_address","kind");--> statement-breakpoint
CREATE INDEX "tokens_new_idx" ON "tokens" USING btree ("created_block" DESC NULLS FIRST,"created_log_index" DESC NULLS FIRST) WHERE not "tokens"."excluded";--> statement-breakpoint
CREATE INDEX "tokens_top_idx" ON "tokens" USING btree ("market_cap" DESC NULLS FIRST,"address" DESC NULLS FIRST) WHERE not "tokens"."excluded";--> statement-breakpoint
CREATE INDEX "tokens_near_idx" ON "tokens" USING btree ("progress_bps" DESC NULLS FIRST,"address" DESC NULLS FIRST) WHERE not "tokens"."excluded" and "tokens"."lifecycle" = 'curve';--> statement-breakpoint
CREATE INDEX "tokens_linked_idx" ON "tokens" USING btree ("created_block" DESC NULLS FIRST,"created_log_index" DESC NULLS FIRST) WHERE not "tokens"."excluded" and "tokens"."has_links";--> statement-breakpoint
CREATE INDEX "tokens_trending_idx" ON "tokens" USING btree ("trending_score" DESC NULLS FIRST,"address" DESC NULLS FIRST) WHERE not "tokens"."excluded" and "tokens"."trending_score" > 0;--> statement-breakpoint
CREATE INDEX "tokens_creator_idx" ON "tokens" USING btree ("creator","created_block" DESC NULLS FIRST,"created_log_index" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "tokens_address_prefix_idx" ON "tokens" USING btree ("address" text_pattern_ops);--> statement-breakpoint
CREATE INDEX "tokens_pool_idx" ON "tokens" USING btree ("pool_address") WHERE "tokens"."pool_address" is not null;--> statement-breakpoint
CREATE INDEX "tokens_last_trade_idx" ON "tokens" USING btree ("last_trade_at") WHERE "tokens"."last_trade_at" is not null;--> statement-breakpoint
CREATE INDEX "balances_wallet_idx" ON "balances" USING btree ("wallet","token_address");--> statement-breakpoint
CREATE INDEX "balances_holders_idx" ON "balances" USING btree ("token_address","balance" DESC NULLS FIRST,"wallet" DESC NULLS FIRST) WHERE "balances"."kind" = 0;--> statement-breakpoint
CREATE INDEX "trades_token_order_idx" ON "trades" USING btree ("token_address","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "trades_token_time_idx" ON "trades" USING btree ("token_address","block_timestamp");--> statement-breakpoint
CREATE INDEX "trades_trader_idx" ON "trades" USING btree ("trader","block_number" DESC NULLS FIRST,"log_index" DESC NULLS FIRST);