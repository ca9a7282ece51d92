/** A memory-hard password hash: the encoded result carries its own parameters, so a cost change keeps old hashes valid. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Whether `password` matches `encoded` (compared in constant time). False for an unreadable `encoded`. */
  verify(password: string, encoded: string): Promise<boolean>;
}
