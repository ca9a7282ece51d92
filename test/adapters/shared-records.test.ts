/**
 * The SharedRecords contract on every backend set startup may meet: memory (portable), PostgreSQL
 * storage and permissions in one database (joined), and PostgreSQL storage with Redis permissions
 * (portable, with compensation). Each set needs its services (its suite fails under CI without them).
 */
import { permissionBackendSetups, postgresWithRedisSetup } from "../support/backend-setups.js";
import { requireService } from "../support/services.js";
import { sharedRecordsContract } from "../contract/shared-records.contract.js";

const [memory, postgres] = permissionBackendSetups("shared_records");
const withRedis = postgresWithRedisSetup("shared_records");

describe("SharedRecords on each backend set", () => {
  if (memory) sharedRecordsContract({ name: memory.name, settings: () => memory.settings(), joined: false });
  describe("on PostgreSQL", () => {
    requireService("postgresql");
    if (postgres) sharedRecordsContract({ name: postgres.name, settings: () => postgres.settings(), joined: true });
  });
  describe("on PostgreSQL and Redis", () => {
    requireService("postgresql");
    requireService("redis");
    sharedRecordsContract({ name: withRedis.name, settings: () => withRedis.settings(), joined: false });
  });
});
