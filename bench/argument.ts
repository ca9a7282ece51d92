/** `--name value` from the command line, or `fallback` when absent: the benchmarks' one option reader. */
export function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}
