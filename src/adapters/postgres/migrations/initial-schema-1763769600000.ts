/** Schema version 1: records, scope timestamps, ACEs, user principals, cache. */
import type { MigrationInterface, QueryRunner } from "typeorm";

export class InitialSchema1763769600000 implements MigrationInterface {
  name = "InitialSchema1763769600000";

  async up(runner: QueryRunner): Promise<void> {
    // Ids are compared by code point (COLLATE "C"), which also lets B-tree indexes serve prefix ranges.
    await runner.query(`CREATE TABLE records (
      collection TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      id TEXT COLLATE "C" NOT NULL,
      last_modified BIGINT NOT NULL,
      data JSONB NOT NULL DEFAULT '{}',
      deleted BOOLEAN NOT NULL DEFAULT FALSE,
      CONSTRAINT pk_records PRIMARY KEY (collection, parent_id, id)
    )`);
    await runner.query(`CREATE INDEX idx_records_scope_last_modified ON records (collection, parent_id, last_modified)`);
    await runner.query(`CREATE TABLE timestamps (
      collection TEXT COLLATE "C" NOT NULL,
      parent_id TEXT COLLATE "C" NOT NULL,
      last_modified BIGINT NOT NULL,
      CONSTRAINT pk_timestamps PRIMARY KEY (collection, parent_id)
    )`);
    await runner.query(`CREATE TABLE access_control_entries (
      object_id TEXT COLLATE "C" NOT NULL,
      permission TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      CONSTRAINT pk_access_control_entries PRIMARY KEY (object_id, permission, principal)
    )`);
    await runner.query(`CREATE INDEX idx_access_control_entries_principal ON access_control_entries (principal, permission, object_id)`);
    await runner.query(`CREATE TABLE user_principals (
      user_id TEXT COLLATE "C" NOT NULL,
      principal TEXT COLLATE "C" NOT NULL,
      CONSTRAINT pk_user_principals PRIMARY KEY (user_id, principal)
    )`);
    await runner.query(`CREATE INDEX idx_user_principals_principal ON user_principals (principal)`);
    await runner.query(`CREATE TABLE cache (
      key TEXT COLLATE "C" NOT NULL,
      value TEXT NOT NULL,
      expires BIGINT NOT NULL,
      CONSTRAINT pk_cache PRIMARY KEY (key)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of ["cache", "user_principals", "access_control_entries", "timestamps", "records"]) {
      await runner.query(`DROP TABLE ${table}`);
    }
  }
}
