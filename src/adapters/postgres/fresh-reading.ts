/**
 * A value read after the call was made: a reading already in flight when the call arrives was
 * sent before it and cannot speak for it, so the call waits for the next one. Calls that arrive
 * while a reading is in flight share that next one: one round trip per burst of calls.
 */
import { StatementBursts } from "./statement-bursts.js";

export function freshReading<T>(read: () => Promise<T>): () => Promise<T> {
  const bursts = new StatementBursts<undefined, T>(
    async (calls) => {
      const value = await read();
      return calls.map(() => value);
    },
    { maxInFlight: 1, maxBurst: Number.MAX_SAFE_INTEGER },
  );
  return () => bursts.submit(undefined);
}
