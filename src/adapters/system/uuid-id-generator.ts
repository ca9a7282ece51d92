import { randomUUID } from "node:crypto";
import type { IdGenerator } from "../../application/ports/clock.js";

/** UUID4 ids, as Kinto generates them. */
export class UuidIdGenerator implements IdGenerator {
  generate(): string {
    return randomUUID();
  }
}
