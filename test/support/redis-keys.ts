/** Removes what a test's `serve` processes left in Redis under the test's own key prefix. */
import { Redis } from "ioredis";

/** Deletes every key starting with `prefix` (glob characters in it are matched literally). */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      if (keys.length > 0) await client.del(...keys);
      cursor = next;
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}
