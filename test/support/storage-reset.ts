/** Empties the storage of a composition between tests: its records and its access journal (the two ports of one storage). */
import type { Container } from "inversify";
import { TOKENS } from "../../src/bootstrap/tokens.js";

export async function flushStorage(container: Pick<Container, "getAsync">): Promise<void> {
  await (await container.getAsync(TOKENS.AccessJournal)).flush();
  const records = await container.getAsync(TOKENS.RecordStore);
  await records.flush();
}
