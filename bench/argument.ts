/** `--name value` from the command line, or `fallback` when absent: the benchmarks' one option reader. */
export function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

/** `--name first second` (e.g. `--compare A B`): the two values, or undefined when the option is absent. */
export function argumentPair(name: string): [string, string] | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const [first, second] = process.argv.slice(index + 1, index + 3);
  if (first === undefined || second === undefined || first.startsWith("--") || second.startsWith("--"))
    throw new Error(`--${name} needs two values`);
  return [first, second];
}

/** `--name N`, a positive integer, or `fallback` when absent. */
export function positiveInteger(name: string, fallback: number): number {
  const value = Number(argument(name, String(fallback)));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}
