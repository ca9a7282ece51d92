/**
 * The id of a user's `default` bucket, as Kinto's default_bucket plugin derives it: the first 32
 * hex digits of HMAC-SHA256(secret, user id), written as a UUID. The same secret gives the same
 * bucket as Kinto for the same user id.
 */
import { createHmac } from "node:crypto";

export function defaultBucketId(secret: string, userId: string): string {
  const hex = createHmac("sha256", secret).update(userId, "utf8").digest("hex").slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
