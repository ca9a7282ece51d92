/**
 * After tsc: the admin page's static files go next to its compiled modules, and the `tessera`
 * bin becomes executable (tsc writes files without the execute bit). Node only, so it is portable.
 */
import { chmodSync, copyFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..", ".."); // dist/scripts
const admin = path.join(root, "src/adapters/http/admin");
const built = path.join(root, "dist/src/adapters/http/admin");
for (const name of readdirSync(admin)) if (/\.(html|css)$/.test(name)) copyFileSync(path.join(admin, name), path.join(built, name));

const { bin } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { bin: Record<string, string> };
for (const file of Object.values(bin)) chmodSync(path.join(root, file), 0o755);
