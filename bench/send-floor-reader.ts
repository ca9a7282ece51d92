/**
 * send-floor.ts's reader: `node send-floor-reader.js <port> <streams>` opens the streams and reads
 * them until killed. A few at a time, each retried until it holds: thousands of connections at
 * once overflow the listener's queues, and a connection refused or reset must not end the others.
 */
import { connect } from "node:net";

const [port, streams] = [Number(process.argv[2]), Number(process.argv[3])];
const AT_ONCE = 64;
const RETRY_MS = 100;

/** Resolves once the connection is up; read from then on (resume: everything as it comes, dropped). */
function open(): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1", () => resolve());
    socket.resume();
    socket.once("error", () => {
      socket.destroy();
      setTimeout(() => void open().then(resolve), RETRY_MS);
    });
  });
}

let next = 0;
async function opener(): Promise<void> {
  while (next < streams) {
    next += 1;
    await open();
  }
}
await Promise.all(Array.from({ length: Math.min(AT_ONCE, streams) }, opener));
