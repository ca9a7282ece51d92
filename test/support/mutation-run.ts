/**
 * Loaded first by the mutation run only (stryker.mocharc.json, docs/mutation-testing.md): there
 * the sync suites run on the memory backend alone. Stryker re-runs every test covering a mutant
 * that survives; on PostgreSQL and Redis too, each would start two more servers for what the
 * application code does the same way (the live feed's unit tests cover the other ACL path).
 */
process.env.TESSERA_SYNC_BACKENDS = "memory";
