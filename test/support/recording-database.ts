/** A PostgresDatabase that remembers the statements its stores send (plans and round-trip tests). */
import type pg from "pg";
import { PostgresDatabase, type Statement } from "../../src/adapters/postgres/postgres-database.js";
import type { PostgresBackendName } from "../../src/adapters/postgres/postgres-errors.js";

export interface Sent {
  readonly text: string;
  readonly values: readonly unknown[];
}

export class RecordingDatabase extends PostgresDatabase {
  readonly sent: Sent[] = [];

  override query<R extends pg.QueryResultRow>(
    backend: PostgresBackendName,
    statement: Statement | string,
    values: readonly unknown[] = [],
  ): Promise<R[]> {
    this.sent.push({ text: typeof statement === "string" ? statement : statement.text, values });
    return super.query<R>(backend, statement, values);
  }
}
