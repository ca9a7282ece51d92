/**
 * Schema version 3: plans that hold without statistics (docs/adr/0010-group-commit-per-collection.md
 * for the counter row, docs/benchmarks.md for the figures).
 *
 * - The scope index keys `collection` and `parent_id` under the "POSIX" collation (the same byte
 *   order as the columns' "C", but another collation): a query must name it to use the index.
 *   Id lookups, which compare under "C", can then only take the primary key; before statistics
 *   exist the planner saw both indexes as equally good for them and could pick the scope index,
 *   filtering a whole collection per lookup. Scope scans name "POSIX" and take this index.
 * - The counter rows (`timestamps`) leave 90 % of each page free, so that the one update per
 *   group commit stays a HOT update pruned within its page, even with autovacuum off.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class PlansWithoutStatistics1763856000000 implements MigrationInterface {
  name = "PlansWithoutStatistics1763856000000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX idx_records_scope_modified ON records (collection COLLATE "POSIX", parent_id COLLATE "POSIX", last_modified)`,
    );
    await runner.query(`DROP INDEX idx_records_scope_last_modified`);
    await runner.query(`ALTER TABLE timestamps SET (fillfactor = 10)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE timestamps RESET (fillfactor)`);
    await runner.query(`CREATE INDEX idx_records_scope_last_modified ON records (collection, parent_id, last_modified)`);
    await runner.query(`DROP INDEX idx_records_scope_modified`);
  }
}
