ALTER TABLE "webhook_targets" ADD COLUMN "previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_targets" ADD COLUMN "previous_secret_until" timestamp with time zone;