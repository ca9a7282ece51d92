/** send-floor.ts's reader: `node send-floor-reader.js <port> <streams>` opens the streams and reads them until killed. */
import { connect } from "node:net";

const [port, streams] = [Number(process.argv[2]), Number(process.argv[3])];
// resume(): read everything as it comes, and drop it.
for (let i = 0; i < streams; i += 1) connect(port, "127.0.0.1").resume();
