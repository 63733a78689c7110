CREATE TABLE "webhook_outbox" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"target_id" text NOT NULL,
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"block_number" bigint,
	"body" text NOT NULL,
	"attempted_at" timestamp with time zone,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_targets" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"token_address" text,
	"events" text[] NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"failing_since" timestamp with time zone,
	"last_error" text,
	"last_delivered_at" timestamp with time zone,
	"delivered" bigint DEFAULT 0 NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_outbox" ADD CONSTRAINT "webhook_outbox_target_id_webhook_targets_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."webhook_targets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "webhook_outbox_pending_idx" ON "webhook_outbox" USING btree ("target_id","seq") WHERE "webhook_outbox"."delivered_at" is null;--> statement-breakpoint
CREATE INDEX "webhook_outbox_block_idx" ON "webhook_outbox" USING btree ("block_number");