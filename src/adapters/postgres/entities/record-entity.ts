/** One record or tombstone of a scope (collection + parent). Read and written with plain SQL. */
import { Column, Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "records" })
// Listing in timestamp order, `_since` ranges and keyset pages walk this index. Migration 3 keys
// its scope columns under the "POSIX" collation (which TypeORM cannot say), so id lookups never
// take it: never synchronised, the migrations own it.
@Index("idx_records_scope_modified", { synchronize: false })
// Added by migration 2: tombstone purges scan only tombstones.
@Index("idx_records_tombstones", ["lastModified"], { where: "deleted" })
export class RecordEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  collection!: string;

  @PrimaryColumn({ name: "parent_id", type: "text", collation: "C" })
  parentId!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  id!: string;

  @Column({ name: "last_modified", type: "bigint" })
  lastModified!: string;

  @Column({ type: "jsonb", default: () => "'{}'" })
  data!: object;

  @Column({ type: "boolean", default: false })
  deleted!: boolean;
}
