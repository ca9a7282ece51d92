/**
 * Schema version 9: a deleted account's row stays, marked `retired` and without its hash, so its
 * id (the primary key) can never be inserted again: no one inherits `account:<id>`. The mark
 * lives in the row rather than in a table of its own, so that a sign-up racing a deletion meets
 * the same key and cannot slip in between the removal and the retirement.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class RetiredAccounts1764374400000 implements MigrationInterface {
  name = "RetiredAccounts1764374400000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE accounts ADD COLUMN retired BOOLEAN NOT NULL DEFAULT FALSE`);
    await runner.query(`ALTER TABLE accounts ALTER COLUMN password_hash DROP NOT NULL`);
    await runner.query(`ALTER TABLE accounts ADD CONSTRAINT ck_accounts_hash_while_live CHECK (retired = (password_hash IS NULL))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    // Retired ids cannot be kept without the column: they are removed (and become free again).
    await runner.query(`DELETE FROM accounts WHERE retired`);
    await runner.query(`ALTER TABLE accounts DROP CONSTRAINT ck_accounts_hash_while_live`);
    await runner.query(`ALTER TABLE accounts ALTER COLUMN password_hash SET NOT NULL`);
    await runner.query(`ALTER TABLE accounts DROP COLUMN retired`);
  }
}
