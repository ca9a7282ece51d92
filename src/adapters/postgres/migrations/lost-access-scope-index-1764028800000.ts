/**
 * Schema version 5: the live feed reads a scope's losses after a timestamp once per burst; this
 * index makes that an index range instead of a walk over every loss the scope ever recorded.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class LostAccessScopeIndex1764028800000 implements MigrationInterface {
  name = "LostAccessScopeIndex1764028800000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX idx_lost_access_scope_modified ON lost_access (collection, parent_id, last_modified)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX idx_lost_access_scope_modified`);
  }
}
