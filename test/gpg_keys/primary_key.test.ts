import { generateKey, readKey } from "openpgp";
import { describe, expect, it } from "vitest";
import { primaryKeyOf } from "../../functions/gpg_keys/openpgp";

/** OpenPGP.js's reading of the same key: what the hand-written reader must agree with. */
async function reference(armored: string) {
  const key = await readKey({ armoredKey: armored });
  return { fingerprint: key.getFingerprint().toUpperCase(), keyid: key.getKeyID().toHex().toUpperCase() };
}

describe("primaryKeyOf (the GPG key reader)", () => {
  it("agrees with OpenPGP.js on v4 Curve25519 and RSA keys and on a v6 key", async () => {
    const keys = [
      (await generateKey({ type: "curve25519", userIDs: [{ name: "A", email: "a@example.com" }], format: "armored" })).publicKey,
      (await generateKey({ type: "rsa", rsaBits: 2048, userIDs: [{ name: "B", email: "b@example.com" }], format: "armored" })).publicKey,
      (await generateKey({ type: "curve25519", userIDs: [{ name: "C" }], format: "armored", config: { v6Keys: true } })).publicKey,
    ];
    for (const armored of keys) {
      const ours = await primaryKeyOf(armored);
      expect(ours).toEqual(await reference(armored));
      expect(ours!.keyid).toMatch(/^[0-9A-F]{16}$/);
    }
  });

  it("reads a key armored with headers, CRLF and without its checksum line", async () => {
    const { publicKey } = await generateKey({ type: "curve25519", userIDs: [{ name: "D" }], format: "armored" });
    const expected = await reference(publicKey);
    const withHeader = publicKey.replace("-----BEGIN PGP PUBLIC KEY BLOCK-----\n", "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: hi\n").replace(/\n/g, "\r\n");
    expect(await primaryKeyOf(withHeader)).toEqual(expected);
    expect(await primaryKeyOf(publicKey.replace(/\n=[A-Za-z0-9+/]{4}\n/, "\n"))).toEqual(expected);
  });

  it("refuses a private key, a wrong checksum, a truncated block and text that is not a key", async () => {
    const { privateKey, publicKey } = await generateKey({ type: "curve25519", userIDs: [{ name: "E" }], format: "armored" });
    expect(await primaryKeyOf(privateKey.replace(/PRIVATE KEY BLOCK/g, "PUBLIC KEY BLOCK"))).toBeNull();
    const checksum = publicKey.match(/\n=([A-Za-z0-9+/]{4})\n/)![1];
    expect(await primaryKeyOf(publicKey.replace(`=${checksum}`, checksum === "AAAA" ? "=AAAB" : "=AAAA"))).toBeNull();
    const lines = publicKey.split("\n");
    const truncated = [...lines.slice(0, 4), ...lines.slice(-3)].join("\n").replace(/\n=[A-Za-z0-9+/]{4}\n/, "\n");
    expect(await primaryKeyOf(truncated)).toBeNull();
    expect(await primaryKeyOf("-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nbm90IGEga2V5\n-----END PGP PUBLIC KEY BLOCK-----")).toBeNull();
    expect(await primaryKeyOf("ssh-ed25519 AAAA")).toBeNull();
  });
});
