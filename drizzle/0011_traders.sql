CREATE TABLE "traders" (
	"token_address" text NOT NULL,
	"wallet" text NOT NULL,
	"bought" numeric(78, 0) NOT NULL,
	"sold" numeric(78, 0) NOT NULL,
	"quote_spent" numeric(78, 0) NOT NULL,
	"quote_received" numeric(78, 0) NOT NULL,
	"volume" numeric(78, 0) NOT NULL,
	"balance" numeric(78, 0) NOT NULL,
	"cost_basis" numeric(78, 0) NOT NULL,
	"realized_pnl" numeric(78, 0) NOT NULL,
	"buys" integer NOT NULL,
	"sells" integer NOT NULL,
	"first_trade_block" bigint,
	"first_trade_at" bigint,
	"last_trade_block" bigint,
	"last_trade_at" bigint,
	"is_creator" boolean NOT NULL,
	"sniper" boolean NOT NULL,
	"bundler" boolean NOT NULL,
	"creator_linked" boolean NOT NULL,
	CONSTRAINT "traders_wallet_token_address_pk" PRIMARY KEY("wallet","token_address")
);
--> statement-breakpoint
CREATE INDEX "traders_pnl_idx" ON "traders" USING btree ("token_address","realized_pnl" DESC NULLS FIRST,"wallet" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "traders_volume_idx" ON "traders" USING btree ("token_address","volume" DESC NULLS FIRST,"wallet" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "traders_balance_idx" ON "traders" USING btree ("token_address","balance" DESC NULLS FIRST,"wallet" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "traders_labelled_idx" ON "traders" USING btree ("token_address") WHERE "traders"."sniper" or "traders"."bundler" or "traders"."creator_linked";