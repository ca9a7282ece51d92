/**
 * Schema version 10: the holders of a principal in id order. The index on `principal` alone kept
 * a principal's holders in no useful order (PostgreSQL sorts equal keys by their place in the
 * table), so a page of a group's members read, sorted and cut the whole group; keyed by
 * (principal, user_id) a page of holders after a cursor is a range scan of `limit` entries, and
 * the least group at or after an id one descent (the readers page, docs/benchmarks.md). The index
 * serves every lookup by principal the old one served.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class HoldersInOrder1764504000000 implements MigrationInterface {
  name = "HoldersInOrder1764504000000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX idx_user_principals_holders ON user_principals (principal, user_id)`);
    await runner.query(`DROP INDEX idx_user_principals_principal`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX idx_user_principals_principal ON user_principals (principal)`);
    await runner.query(`DROP INDEX idx_user_principals_holders`);
  }
}
