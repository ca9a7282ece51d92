/** The client address per-client bounds count under: X-Forwarded-For only from trusted proxies, IPv6 per /64. */
import { expect } from "chai";
import { addressKey, clientAddress, TrustedProxies } from "../../src/adapters/http/client-address.js";

describe("client address", () => {
  const none = new TrustedProxies([]);
  const proxies = new TrustedProxies(["10.0.0.0/8", "192.168.1.1", "fd00::/8"]);

  it("is the peer's address when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.7", "198.51.100.1", none)).to.equal("203.0.113.7");
    expect(clientAddress("::ffff:203.0.113.7", "198.51.100.1", none)).to.equal("203.0.113.7");
    // Trusting other proxies does not make an untrusted peer's header believable.
    expect(clientAddress("203.0.113.7", "198.51.100.1", proxies)).to.equal("203.0.113.7");
  });

  it("is the right-most address that no trusted proxy added", () => {
    expect(clientAddress("192.168.1.1", "198.51.100.1", proxies)).to.equal("198.51.100.1");
    expect(clientAddress("192.168.1.1", "6.6.6.6, 198.51.100.1", proxies)).to.equal("198.51.100.1");
    expect(clientAddress("192.168.1.1", "6.6.6.6,198.51.100.1, 10.1.2.3", proxies)).to.equal("198.51.100.1");
    expect(clientAddress("::ffff:192.168.1.1", "2001:db8::1, fd12::5", proxies)).to.equal("2001:db8::1");
  });

  it("stops at a hop that is not an address, or at the left end, on the last one reached", () => {
    expect(clientAddress("192.168.1.1", "unknown, 10.9.9.9", proxies)).to.equal("10.9.9.9");
    expect(clientAddress("192.168.1.1", "garbage", proxies)).to.equal("192.168.1.1");
    expect(clientAddress("192.168.1.1", "10.2.2.2, 10.9.9.9", proxies)).to.equal("10.2.2.2");
    expect(clientAddress("192.168.1.1", undefined, proxies)).to.equal("192.168.1.1");
  });

  it("counts an IPv6 client by its /64 and an IPv4 client by its address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).to.equal("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).to.equal("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).to.equal("2001:db8:0:0::/64");
    expect(addressKey("::1")).to.equal("0:0:0:0::/64");
    expect(addressKey("::ffff:203.0.113.7")).to.equal("203.0.113.7");
    expect(addressKey("203.0.113.7")).to.equal("203.0.113.7");
  });
});
