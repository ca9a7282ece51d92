/**
 * Who the client is, as far as per-client bounds care: the peer's address, or behind a declared
 * (trusted) reverse proxy the right-most address of `X-Forwarded-For` that no trusted proxy
 * added. A header from anyone else is never read: any client can write one.
 */
import { BlockList, isIP } from "node:net";

/** An address or CIDR range (`10.0.0.0/8`, `::1`, `fd00::/8`); undefined when it is neither. */
export function parseAddressRange(text: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText, ...rest] = text.split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix > max ? undefined : { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** `::ffff:10.0.0.1` (an IPv4 peer of a dual-stack socket) is `10.0.0.1`. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** `ranges` are validated by the settings (parseAddressRange); a bad one is skipped. */
  constructor(ranges: readonly string[]) {
    let count = 0;
    for (const text of ranges) {
      const range = parseAddressRange(text);
      if (!range) continue;
      this.list.addSubnet(range.address, range.prefix, range.family);
      count += 1;
    }
    this.empty = count === 0;
  }

  trusts(address: string | undefined): boolean {
    if (this.empty || address === undefined) return false;
    const plain = plainAddress(address);
    const version = isIP(plain);
    return version !== 0 && this.list.check(plain, version === 4 ? "ipv4" : "ipv6");
  }
}

/**
 * The client's address. From a trusted proxy, `X-Forwarded-For` is read from the right (each
 * proxy appends the address it received from): trusted hops are skipped, the first other address
 * is the client. An entry that is not an address stops the walk at the hop that appended it.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, proxies: TrustedProxies): string {
  let client = plainAddress(peer ?? "");
  if (!proxies.trusts(client) || forwardedFor === undefined) return client;
  const hops = forwardedFor.split(",").map((hop) => plainAddress(hop.trim()));
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i] ?? "";
    if (isIP(hop) === 0) break;
    client = hop;
    if (!proxies.trusts(hop)) break;
  }
  return client;
}

/**
 * The key per-client bounds count under: an IPv4 address, or the /64 an IPv6 address belongs to
 * (one host usually holds a whole /64, so counting single IPv6 addresses would bound nothing).
 */
export function addressKey(address: string): string {
  const plain = plainAddress(address);
  if (isIP(plain) !== 6) return plain;
  const [head = "", tail = ""] = plain.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === "" ? [] : tail.split(":");
  const groups = plain.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(":")}::/64`;
}
