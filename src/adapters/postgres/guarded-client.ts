/**
 * The only pg client class Tessera lets a pool create. A pg client emits 'error' when its socket
 * dies (server restart, terminated backend, network cut) even while no statement runs, and an
 * 'error' event without a listener kills the process. pg-pool listens only while a client is
 * idle or inside `pool.query`; a checked-out client (unit of work, batch, migration lock) has
 * no listener between checkout and the caller's own. This one listens from birth: the failure
 * still reaches whoever uses the connection, as the rejection of its next statement (the client
 * is then unqueryable and is released as broken), never as a crash.
 */
import pg from "pg";

function connectionLost(): void {
  // Nothing to do here: the statement in flight, or the next one, fails with the cause.
}

export class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on("error", connectionLost);
  }
}
