/**
 * Schema version 6: accounts (the accounts policy): an id and its password's scrypt hash, in
 * the storage database.
 */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class Accounts1764201600000 implements MigrationInterface {
  name = "Accounts1764201600000";

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE accounts (
      id TEXT COLLATE "C" NOT NULL,
      password_hash TEXT NOT NULL,
      last_modified BIGINT NOT NULL,
      CONSTRAINT pk_accounts PRIMARY KEY (id)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE accounts`);
  }
}
