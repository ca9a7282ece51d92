/** A principal given read access to a record without a record write (docs/api.md, "Sync"). Read and written with plain SQL. */
import { Column, Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "gained_access" })
// Purges by age read this index.
@Index("idx_gained_access_last_modified", ["lastModified"])
export class GainedAccessEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  collection!: string;

  @PrimaryColumn({ name: "parent_id", type: "text", collation: "C" })
  parentId!: string;

  // The primary key leads with the principal: a sync looks up what the caller's principals gained.
  @PrimaryColumn({ type: "text", collation: "C" })
  principal!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  id!: string;

  @Column({ name: "last_modified", type: "bigint" })
  lastModified!: string;
}
