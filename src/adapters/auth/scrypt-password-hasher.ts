/**
 * Passwords hashed with scrypt (RFC 7914, OpenSSL's through node:crypto): memory-hard, so that
 * guessing a stolen hash costs memory as well as time. Encoded as
 * `scrypt$<log2 N>$<r>$<p>$<salt base64>$<key base64>`: each hash keeps its parameters, so
 * raising the cost leaves existing hashes valid. Defaults: N = 2^17, r = 8, p = 1 (128 MiB and
 * a few hundred milliseconds per hash), a 16-byte random salt, a 32-byte key.
 *
 * Hashes run on libuv's thread pool; at most `concurrency` at once (memory stays bounded) and
 * at most `queue` waiting, beyond which a request is refused with 503 rather than queued forever.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { BackendError } from "../../domain/errors.js";
import type { PasswordHasher } from "../../application/accounts/password-hasher.js";

export interface ScryptOptionsOfHasher {
  /** log2 of N (CPU and memory cost). */
  readonly cost: number;
  readonly blockSize?: number;
  readonly parallelization?: number;
  readonly concurrency?: number;
  readonly queue?: number;
}

const SALT_BYTES = 16;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, log2n: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2n;
  // OpenSSL refuses unless maxmem covers 128 * N * r bytes (plus the p blocks).
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r + 128 * r * p + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export class ScryptPasswordHasher implements PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly r: number;
  private readonly p: number;
  private readonly concurrency: number;
  private readonly queue: number;

  constructor(private readonly options: ScryptOptionsOfHasher) {
    this.r = options.blockSize ?? 8;
    this.p = options.parallelization ?? 1;
    this.concurrency = options.concurrency ?? 2;
    this.queue = options.queue ?? 64;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const key = await this.bounded(() => derive(password, salt, this.options.cost, this.r, this.p));
    return ["scrypt", this.options.cost, this.r, this.p, salt.toString("base64"), key.toString("base64")].join("$");
  }

  async verify(password: string, encoded: string): Promise<boolean> {
    const [name, log2n, r, p, salt, key] = encoded.split("$");
    const numbers = [log2n, r, p].map(Number);
    if (name !== "scrypt" || salt === undefined || key === undefined || numbers.some((n) => !Number.isSafeInteger(n) || n < 1))
      return false;
    const [n = 1, blockSize = 1, parallel = 1] = numbers;
    const expected = Buffer.from(key, "base64");
    const actual = await this.bounded(() => derive(password, Buffer.from(salt, "base64"), n, blockSize, parallel));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private async bounded<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.queue)
        throw new BackendError("accounts", undefined, "Too many password checks at once: retry later.");
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running += 1;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
