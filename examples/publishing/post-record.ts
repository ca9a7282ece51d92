/** The data of a post, checked on every write and shown as its JSON Schema in `/v1/__api__`. */
import { IsBoolean, IsOptional, IsString, MaxLength } from "class-validator";

export class PostRecord {
  @IsString()
  @MaxLength(200)
  title!: string;

  /** Optional: a draft may be saved before it has a body. */
  @IsOptional()
  @IsString()
  body?: string;

  /** Set through PATCH, which needs the `publish` permission (see publishing-policy.ts). */
  @IsOptional()
  @IsBoolean()
  published?: boolean;
}
