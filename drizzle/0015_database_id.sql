-- This database's identity, made once when it is migrated: stream resume ids carry it, so an id
-- issued by another database (blue/green, a fresh re-index) is told to refetch. Replicas have it
-- by replication.
INSERT INTO "service_secrets" ("name", "value")
VALUES ('database_id', substr(md5(random()::text || clock_timestamp()::text), 1, 8))
ON CONFLICT ("name") DO NOTHING;
