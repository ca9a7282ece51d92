/**
 * Schema version 6: the principal fence of the live feed (docs/feed-fence.md). Each serving
 * process holds a lease (`feed_leases`, ended by the database's clock); a principal change waits
 * until every process whose lease runs has acknowledged its fence (`feed_fences`).
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class FeedFence1764115200000 implements MigrationInterface {
  name = "FeedFence1764115200000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE feed_leases (
      process_id TEXT COLLATE "C" NOT NULL,
      lease_until TIMESTAMPTZ NOT NULL,
      CONSTRAINT pk_feed_leases PRIMARY KEY (process_id)
    )`);
    await runner.query(`CREATE TABLE feed_fences (
      process_id TEXT COLLATE "C" NOT NULL REFERENCES feed_leases (process_id) ON DELETE CASCADE,
      fence_id TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      CONSTRAINT pk_feed_fences PRIMARY KEY (process_id, fence_id)
    )`);
    await runner.query(`CREATE INDEX idx_feed_fences_fence ON feed_fences (fence_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE feed_fences`);
    await runner.query(`DROP TABLE feed_leases`);
  }
}
