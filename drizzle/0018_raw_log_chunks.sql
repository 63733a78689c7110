CREATE TABLE "raw_log_chunks" (
	"from_block" bigint PRIMARY KEY NOT NULL,
	"to_block" bigint NOT NULL,
	"logs" integer NOT NULL,
	"body" "bytea" NOT NULL
);
