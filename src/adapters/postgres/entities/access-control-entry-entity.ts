/** One principal holding one permission on one object id. */
import { Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "access_control_entries" })
// Serves `principal = ANY($1) AND permission = ANY($2)` with an object id range, without a scan.
@Index("idx_access_control_entries_principal", ["principal", "permission", "objectId"])
export class AccessControlEntryEntity {
  @PrimaryColumn({ name: "object_id", type: "text", collation: "C" })
  objectId!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  permission!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  principal!: string;
}
