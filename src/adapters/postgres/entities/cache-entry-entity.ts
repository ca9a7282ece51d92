/** A cache entry: JSON text and its expiry in epoch milliseconds (database clock). */
import { Column, Entity, Index, PrimaryColumn } from "typeorm";

@Entity({ name: "cache" })
@Index("idx_cache_expires", ["expires"])
export class CacheEntryEntity {
  @PrimaryColumn({ type: "text", collation: "C" })
  key!: string;

  @Column({ type: "text" })
  value!: string;

  @Column({ type: "bigint" })
  expires!: string;
}
