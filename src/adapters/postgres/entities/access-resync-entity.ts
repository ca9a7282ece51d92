/** A group change too large to record record by record: a `_since` from before it asks for a resync (docs/api.md, "Sync"). */
import { Column, Entity, PrimaryColumn } from "typeorm";

@Entity({ name: "access_resyncs" })
export class AccessResyncEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  collection!: string;

  @PrimaryColumn({ name: "parent_id", type: "text", collation: "C" })
  parentId!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  principal!: string;

  @Column({ name: "last_modified", type: "bigint" })
  lastModified!: string;
}
