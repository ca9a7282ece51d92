/**
 * The container's SharedRecords when it reads a record and its ACL in one snapshot (records and
 * ACEs in one PostgreSQL database), else undefined: tests that hold reads then hold its `read`
 * instead of the separate reads of the record store and the permission store.
 */
import type { Container } from "inversify";
import type { SharedRecords } from "../../src/application/ports/shared-records.js";
import { TOKENS } from "../../src/bootstrap/tokens.js";

export async function joinedSharedRecords(container: Container): Promise<SharedRecords | undefined> {
  const shared = await container.getAsync(TOKENS.SharedRecords);
  return shared.aclMayTrailRecord ? undefined : shared;
}
