/**
 * `tessera purge`: the tombstones (RecordStore) and the access journal's entries (lost and gained
 * access, resync marks) older than `before`, all of them when undefined. Returns how many
 * tombstones and access entries went, together (resync marks are not counted).
 */
import type { Container } from "inversify";
import { TOKENS } from "./tokens.js";

export async function purgeStorage(container: Pick<Container, "getAsync">, before: number | undefined): Promise<number> {
  const tombstones = await (await container.getAsync(TOKENS.RecordStore)).purgeTombstones(undefined, before);
  return tombstones + (await (await container.getAsync(TOKENS.AccessJournal)).purge(undefined, before));
}
