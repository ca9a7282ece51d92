/** Schema version 2: purging tombstones and expired cache entries reads an index, not the table. */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class PurgeIndexes1763769600001 implements MigrationInterface {
  name = "PurgeIndexes1763769600001";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX idx_records_tombstones ON records (last_modified) WHERE deleted`);
    await runner.query(`CREATE INDEX idx_cache_expires ON cache (expires)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX idx_cache_expires`);
    await runner.query(`DROP INDEX idx_records_tombstones`);
  }
}
