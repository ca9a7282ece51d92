/**
 * Schema version 8: who was given read access to which record without a record write (a group
 * given to a user or a group), so that their next `_since` sync shows the record (docs/api.md).
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class GainedAccess1764288000000 implements MigrationInterface {
  name = "GainedAccess1764288000000";

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
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gained_access`);
  }
}
