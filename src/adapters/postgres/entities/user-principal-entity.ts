/** An extra principal (a group...) held by a user. */
import { Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "user_principals" })
@Index("idx_user_principals_holders", ["principal", "userId"])
export class UserPrincipalEntity {
  @PrimaryColumn({ name: "user_id", type: "text", collation: "C" })
  userId!: string;

  @PrimaryColumn({ type: "text", collation: "C" })
  principal!: string;
}
