// Shape of the pack fixtures test/git_http/pack-fixtures.ts builds on the Node side (global setup).
export type PackFixtures = {
  /** Every object of the repository: id, type, body (base64). */
  objects: { oid: string; type: string; body: string }[];
  /** `git pack-objects --all --delta-base-offset`: OFS_DELTA entries. */
  ofsPack: string;
  /** The same objects without `--delta-base-offset`: REF_DELTA entries. */
  refPack: string;
  /** `--thin` for `HEAD~4..HEAD`: REF_DELTA entries whose bases are not in the pack. */
  thinPack: string;
  /** Ids in the thin pack (`git rev-list --objects HEAD ^HEAD~4`). */
  thinOids: string[];
};

declare module "vitest" {
  export interface ProvidedContext {
    packFixtures: PackFixtures;
  }
}
