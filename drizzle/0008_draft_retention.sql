ALTER TABLE "metadata_drafts" ADD COLUMN "client" text;--> statement-breakpoint
ALTER TABLE "metadata_drafts" ADD COLUMN "stored_bytes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Drafts made before the storage budget weigh what they store: their image and their text.
UPDATE "metadata_drafts" d SET "stored_bytes" = o."size" + octet_length(d."name") + octet_length(d."symbol") + octet_length(d."description") + coalesce(octet_length(d."website_url"), 0) + coalesce(octet_length(d."x_url"), 0) + coalesce(octet_length(d."telegram_url"), 0) + coalesce(octet_length(d."discord_url"), 0) + coalesce(octet_length(d."creator"), 0) FROM "stored_objects" o WHERE o."key" = d."image_key";--> statement-breakpoint
CREATE INDEX "metadata_drafts_unbound_client_idx" ON "metadata_drafts" USING btree ("client") WHERE "metadata_drafts"."bound_token_address" is null;--> statement-breakpoint
CREATE INDEX "metadata_drafts_unbound_created_idx" ON "metadata_drafts" USING btree ("created_at") WHERE "metadata_drafts"."bound_token_address" is null;--> statement-breakpoint
CREATE INDEX "metadata_drafts_image_key_idx" ON "metadata_drafts" USING btree ("image_key");