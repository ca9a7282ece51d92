import { existsSync } from "node:fs";
import path from "node:path";

/** The folder holding package.json, whether running from src (tsx) or dist (tsc output). */
export function projectRoot(start = import.meta.dirname): string {
  let dir = start;
  while (!existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}
