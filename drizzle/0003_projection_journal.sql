CREATE TABLE "projection_journal" (
	"write_seq" bigint NOT NULL,
	"table_name" text NOT NULL,
	"key" jsonb NOT NULL,
	"before" jsonb
);
--> statement-breakpoint
CREATE TABLE "projection_writes" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"from_block" bigint NOT NULL,
	"to_block" bigint NOT NULL,
	"previous_block" bigint,
	"previous_hash" text,
	"previous_timestamp" bigint
);
--> statement-breakpoint
ALTER TABLE "projection_journal" ADD CONSTRAINT "projection_journal_write_seq_projection_writes_seq_fk" FOREIGN KEY ("write_seq") REFERENCES "public"."projection_writes"("seq") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "projection_journal_write_idx" ON "projection_journal" USING btree ("write_seq","table_name");