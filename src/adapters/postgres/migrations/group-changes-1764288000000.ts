/**
 * Schema version 8: access changed without a record write (a group given to or taken from a user
 * or a group, docs/api.md "Sync"): who was given read access to which record, so that their next
 * `_since` sync shows it, and where a change was too large to record record by record, so that a
 * `_since` from before it asks for a full resync.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class GroupChanges1764288000000 implements MigrationInterface {
  name = "GroupChanges1764288000000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE gained_access (
      collection TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      id TEXT COLLATE "C" NOT NULL,
      last_modified BIGINT NOT NULL,
      CONSTRAINT pk_gained_access PRIMARY KEY (collection, parent_id, principal, id)
    )`);
    await runner.query(`CREATE INDEX idx_gained_access_last_modified ON gained_access (last_modified)`);
    await runner.query(`CREATE TABLE access_resyncs (
      collection TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      last_modified BIGINT NOT NULL,
      CONSTRAINT pk_access_resyncs PRIMARY KEY (collection, parent_id, principal)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE access_resyncs`);
    await runner.query(`DROP TABLE gained_access`);
  }
}
