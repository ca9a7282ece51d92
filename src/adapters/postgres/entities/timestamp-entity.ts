/** The timestamp counter of one scope: bumped atomically by every write in its transaction. */
import { Column, Entity, PrimaryColumn } from "typeorm";

@Entity({ name: "timestamps" })
export class TimestampEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  collection!: string;

  @PrimaryColumn({ name: "parent_id", type: "text", collation: "C" })
  parentId!: string;

  @Column({ name: "last_modified", type: "bigint" })
  lastModified!: string;
}
