/** A principal that could read a record and no longer can (docs/adr/0011). Read and written with plain SQL. */
import { Column, Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "lost_access" })
// Purges by age read this index.
@Index("idx_lost_access_last_modified", ["lastModified"])
// The live feed reads a scope's losses after a timestamp, once per burst.
@Index("idx_lost_access_scope_modified", ["collection", "parentId", "lastModified"])
export class LostAccessEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  collection!: string;

  @PrimaryColumn({ name: "parent_id", type: "text", collation: "C" })
  parentId!: string;

  // The primary key leads with the principal: a listing looks up what the caller's principals lost.
  @PrimaryColumn({ type: "text", collation: "C" })
  principal!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  id!: string;

  @Column({ name: "last_modified", type: "bigint" })
  lastModified!: string;
}
