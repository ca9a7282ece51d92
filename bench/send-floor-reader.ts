/** send-floor.ts's reader: `node send-floor-reader.js <port> <streams>` opens the streams and reads them until killed. */
import { connect } from "node:net";

const [port, streams] = [Number(process.argv[2]), Number(process.argv[3])];
let bytes = 0;
for (let i = 0; i < streams; i += 1) connect(port, "127.0.0.1").on("data", (data: Buffer) => (bytes += data.length));
process.once("SIGTERM", () => process.exit(bytes >= 0 ? 0 : 1));
