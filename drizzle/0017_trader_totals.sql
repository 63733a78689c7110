CREATE TABLE "trader_totals" (
	"token_address" text PRIMARY KEY NOT NULL,
	"sniper_wallets" integer NOT NULL,
	"sniper_balance" numeric(78, 0) NOT NULL,
	"bundler_wallets" integer NOT NULL,
	"bundler_balance" numeric(78, 0) NOT NULL,
	"linked_wallets" integer NOT NULL,
	"linked_balance" numeric(78, 0) NOT NULL,
	"cluster_bought" numeric(78, 0) NOT NULL,
	"cluster_sold" numeric(78, 0) NOT NULL
);
--> statement-breakpoint
-- The risk summary reads these sums instead of the labelled rows (docs/api.md): they start from
-- the rows as stored, which the writer then keeps up to date with every change of a row.
INSERT INTO "trader_totals"
SELECT "token_address",
	(count(*) FILTER (WHERE "sniper"))::int, coalesce(sum("balance") FILTER (WHERE "sniper"), 0),
	(count(*) FILTER (WHERE "bundler"))::int, coalesce(sum("balance") FILTER (WHERE "bundler"), 0),
	(count(*) FILTER (WHERE "creator_linked"))::int, coalesce(sum("balance") FILTER (WHERE "creator_linked"), 0),
	coalesce(sum("bought") FILTER (WHERE "is_creator" OR "creator_linked"), 0),
	coalesce(sum("sold") FILTER (WHERE "is_creator" OR "creator_linked"), 0)
FROM "traders" GROUP BY "token_address";
--> statement-breakpoint
DROP INDEX IF EXISTS "traders_labelled_idx";
