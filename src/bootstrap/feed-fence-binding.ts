/**
 * Binds the principal fence over the storage database's ledger (docs/feed-fence.md): each
 * serving process holds a lease there under a name of its own (host, pid, random part).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Bind } from "inversify";
import type { Logger } from "pino";
import { PostgresFenceLedger } from "../adapters/postgres/postgres-fence-ledger.js";
import { urlWithPassword } from "../adapters/postgres/postgres-url.js";
import { LeasedPrincipalFence } from "../application/leased-principal-fence.js";
import type { BackendSettings } from "./settings.js";
import { TOKENS } from "./tokens.js";

export function feedFenceBinding(bind: Bind, storage: BackendSettings<string>, leaseSeconds: number): void {
  // Opened on first use only (never by `migrate` or `purge`), closed with the container.
  let ledger: PostgresFenceLedger | undefined;
  bind(TOKENS.PrincipalFence)
    .toResolvedValue(
      (logger: Logger) =>
        new LeasedPrincipalFence({
          ledger: (ledger = new PostgresFenceLedger({
            connectionString: urlWithPassword(storage.url ?? "", storage.passwordFile),
            connectTimeoutMs: Math.round(storage.poolTimeoutSeconds * 1000),
            statementTimeoutMs: Math.round(storage.statementTimeoutSeconds * 1000),
          })),
          processId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
          leaseMs: Math.round(leaseSeconds * 1000),
          log: (error, message) => logger.error({ err: error }, message),
        }),
      [TOKENS.Logger],
    )
    .onDeactivation(() => ledger?.close());
}
