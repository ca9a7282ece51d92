/** Schema version 4: who lost read access to which record, so that sync shows them a tombstone. */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class LostAccess1763942400000 implements MigrationInterface {
  name = "LostAccess1763942400000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE lost_access (
      collection TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      id TEXT COLLATE "C" NOT NULL,
      last_modified BIGINT NOT NULL,
      CONSTRAINT pk_lost_access PRIMARY KEY (collection, parent_id, principal, id)
    )`);
    await runner.query(`CREATE INDEX idx_lost_access_last_modified ON lost_access (last_modified)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE lost_access`);
  }
}
