-- Tessera PostgreSQL schema, version 4: the same schema `tessera migrate` builds from the
-- TypeORM migrations in src/adapters/postgres/migrations (a test compares the two).
--
-- For operators who keep schema rights away from the service: apply it once with
--   psql -v ON_ERROR_STOP=1 -d <database> -f sql/schema.sql
-- then grant the service's role SELECT, INSERT, UPDATE, DELETE on these tables. Re-applying it is
-- harmless, and on an older database it adds what the later versions add. The rows it writes in
-- tessera_migrations tell `tessera migrate` that nothing is left to do.

BEGIN;

-- Records and tombstones of every scope (collection + parent). Ids compare by code point.
CREATE TABLE IF NOT EXISTS records (
  collection TEXT COLLATE "C" NOT NULL,
  parent_id TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  last_modified BIGINT NOT NULL,
  data JSONB NOT NULL DEFAULT '{}',
  deleted BOOLEAN NOT NULL DEFAULT FALSE,
  CONSTRAINT pk_records PRIMARY KEY (collection, parent_id, id)
);

-- One counter per scope, written once per group commit: strictly increasing timestamps.
CREATE TABLE IF NOT EXISTS timestamps (
  collection TEXT COLLATE "C" NOT NULL,
  parent_id TEXT COLLATE "C" NOT NULL,
  last_modified BIGINT NOT NULL,
  CONSTRAINT pk_timestamps PRIMARY KEY (collection, parent_id)
);

-- ACEs: the primary key serves per-object lookups, the second index `principal = ANY($1)`.
CREATE TABLE IF NOT EXISTS access_control_entries (
  object_id TEXT COLLATE "C" NOT NULL,
  permission TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  CONSTRAINT pk_access_control_entries PRIMARY KEY (object_id, permission, principal)
);
CREATE INDEX IF NOT EXISTS idx_access_control_entries_principal ON access_control_entries (principal, permission, object_id);

CREATE TABLE IF NOT EXISTS user_principals (
  user_id TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  CONSTRAINT pk_user_principals PRIMARY KEY (user_id, principal)
);
CREATE INDEX IF NOT EXISTS idx_user_principals_principal ON user_principals (principal);

-- Cache entries: JSON text, expiry in epoch milliseconds of the database clock.
CREATE TABLE IF NOT EXISTS cache (
  key TEXT COLLATE "C" NOT NULL,
  value TEXT NOT NULL,
  expires BIGINT NOT NULL,
  CONSTRAINT pk_cache PRIMARY KEY (key)
);

-- Version 2: purges read an index instead of the whole table.
CREATE INDEX IF NOT EXISTS idx_records_tombstones ON records (last_modified) WHERE deleted;
CREATE INDEX IF NOT EXISTS idx_cache_expires ON cache (expires);

-- Version 3: plans that hold without statistics. The scope index keys collection and parent_id
-- under "POSIX" (same order as "C"): only queries naming it use it, so id lookups (under "C")
-- can only take the primary key. Counter rows leave room for HOT updates on their page.
CREATE INDEX IF NOT EXISTS idx_records_scope_modified ON records (collection COLLATE "POSIX", parent_id COLLATE "POSIX", last_modified);
DROP INDEX IF EXISTS idx_records_scope_last_modified;
ALTER TABLE timestamps SET (fillfactor = 10);

-- Version 4: principals that could read a record and no longer can (deleted, or ACE removed);
-- their `_since` syncs show it as a tombstone.
CREATE TABLE IF NOT EXISTS lost_access (
  collection TEXT COLLATE "C" NOT NULL,
  parent_id TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  last_modified BIGINT NOT NULL,
  CONSTRAINT pk_lost_access PRIMARY KEY (collection, parent_id, principal, id)
);
CREATE INDEX IF NOT EXISTS idx_lost_access_last_modified ON lost_access (last_modified);

-- Version 5: the live feed reads a scope's losses after a timestamp as an index range.
CREATE INDEX IF NOT EXISTS idx_lost_access_scope_modified ON lost_access (collection, parent_id, last_modified);

-- Version 6: accounts (the accounts policy): an id and its password's scrypt hash.
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT COLLATE "C" NOT NULL,
  password_hash TEXT NOT NULL,
  last_modified BIGINT NOT NULL,
  CONSTRAINT pk_accounts PRIMARY KEY (id)
);
-- Version 7: the live feed's principal fence: a lease per serving process (ended by the
-- database's clock) and the fences each still owes (docs/feed-fence.md).
CREATE TABLE IF NOT EXISTS feed_leases (
  process_id TEXT COLLATE "C" NOT NULL,
  lease_until TIMESTAMPTZ NOT NULL,
  CONSTRAINT pk_feed_leases PRIMARY KEY (process_id)
);
CREATE TABLE IF NOT EXISTS feed_fences (
  process_id TEXT COLLATE "C" NOT NULL REFERENCES feed_leases (process_id) ON DELETE CASCADE,
  fence_id TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  CONSTRAINT pk_feed_fences PRIMARY KEY (process_id, fence_id)
);
CREATE INDEX IF NOT EXISTS idx_feed_fences_fence ON feed_fences (fence_id);

-- Version 8: access changed without a record write (a group given to or taken from a user or a
-- group, docs/api.md "Sync"): who was given read access to which record, so that their next
-- `_since` sync shows it, and where a change was too large to record record by record.
CREATE TABLE IF NOT EXISTS gained_access (
  collection TEXT COLLATE "C" NOT NULL,
  parent_id TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  last_modified BIGINT NOT NULL,
  CONSTRAINT pk_gained_access PRIMARY KEY (collection, parent_id, principal, id)
);
CREATE INDEX IF NOT EXISTS idx_gained_access_last_modified ON gained_access (last_modified);
CREATE TABLE IF NOT EXISTS access_resyncs (
  collection TEXT COLLATE "C" NOT NULL,
  parent_id TEXT COLLATE "C" NOT NULL,
  principal TEXT COLLATE "C" NOT NULL,
  last_modified BIGINT NOT NULL,
  CONSTRAINT pk_access_resyncs PRIMARY KEY (collection, parent_id, principal)
);

-- Version 9: a deleted account's row stays, retired and without its hash, so that its id can
-- never be signed up again (no one inherits `account:<id>`).
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS retired BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE accounts ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE accounts DROP CONSTRAINT IF EXISTS ck_accounts_hash_while_live;
ALTER TABLE accounts ADD CONSTRAINT ck_accounts_hash_while_live CHECK (retired = (password_hash IS NULL));

-- Version 10: a principal's holders in id order, so that a page of a group's members reads a
-- page (readers), not the group.
CREATE INDEX IF NOT EXISTS idx_user_principals_holders ON user_principals (principal, user_id);
DROP INDEX IF EXISTS idx_user_principals_principal;

-- TypeORM's migrations table, as its migration runner creates it.
CREATE TABLE IF NOT EXISTS tessera_migrations (
  "id" SERIAL NOT NULL,
  "timestamp" BIGINT NOT NULL,
  "name" CHARACTER VARYING NOT NULL,
  CONSTRAINT "PK_700391f93975abf7dc14d52d723" PRIMARY KEY ("id")
);
INSERT INTO tessera_migrations ("timestamp", "name")
SELECT v.ts, v.name FROM (VALUES
  (1763769600000, 'InitialSchema1763769600000'),
  (1763769600001, 'PurgeIndexes1763769600001'),
  (1763856000000, 'PlansWithoutStatistics1763856000000'),
  (1763942400000, 'LostAccess1763942400000'),
  (1764028800000, 'LostAccessScopeIndex1764028800000'),
  (1764115200000, 'FeedFence1764115200000'),
  (1764201600000, 'Accounts1764201600000'),
  (1764288000000, 'GroupChanges1764288000000'),
  (1764374400000, 'RetiredAccounts1764374400000'),
  (1764504000000, 'HoldersInOrder1764504000000')
) AS v(ts, name)
WHERE NOT EXISTS (SELECT 1 FROM tessera_migrations m WHERE m.name = v.name)
ORDER BY v.ts;

COMMIT;
