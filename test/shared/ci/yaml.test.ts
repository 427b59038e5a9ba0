import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../functions/shared/ci/yaml";
import { seedJobs, type SeedContext } from "../../../functions/shared/ci/seed";
import { evaluate } from "../../../functions/shared/ci/expression";

const none = async () => null;
const parse = (text: string, files: Record<string, string> = {}) => parseConfig(text, async (p) => files[p] ?? null);
const error = async (text: string) => {
  try {
    await parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};
const ctx = (over: Partial<SeedContext> = {}): SeedContext => ({
  variables: { CI_COMMIT_BRANCH: "main", CI_COMMIT_REF_NAME: "main", CI_PIPELINE_SOURCE: "push" },
  apiVariables: {},
  source: "push",
  ref: "main",
  tag: false,
  changedPaths: ["src/a.ts", "docs/readme.md"],
  files: async () => ["package.json", "src/a.ts"],
  ...over,
});

describe(".gitlab-ci.yml errors (GitLab's yaml_errors)", () => {
  it("gives GitLab's messages", async () => {
    expect(await error("- a\n- b\n")).toBe("Invalid configuration format");
    expect(await error("build:\n  stage: build\n")).toBe("jobs build config should implement the script:, run:, or trigger: keyword");
    expect(await error(".hidden:\n  script: x\n")).toBe("jobs config should contain at least one visible job");
    expect(await error("build:\n  stage: nope\n  script: x\n")).toBe("build job: chosen stage does not exist; available stages are .pre, build, test, deploy, .post");
    expect(await error("build:\n  when: sometimes\n  script: x\n")).toBe("jobs:build when should be one of: on_success, on_failure, always, manual, delayed");
    expect(await error("build:\n  script: x\n  colour: red\n")).toBe("jobs:build config contains unknown keys: colour");
    expect(await error("build:\n  script: x\n  release: {}\n")).toBe("jobs:build:release is not supported by this server");
    expect(await error("include:\n  - remote: https://example.com/a.yml\nbuild:\n  script: x\n")).toBe("include:remote is not supported by this server");
    expect(await error("a: [\n")).toMatch(/^\(<unknown>\): /);
  });
});

describe(".gitlab-ci.yml keyword subset", () => {
  it("expands extends, default, anchors, include:local and parallel", async () => {
    const config = await parse(
      `
include:
  - local: ci/extra.yml
stages: [build, test]
default:
  before_script: [echo default]
  tags: [linux]
variables:
  ROOT: "1"
.base: &base
  script: [echo base]
  variables: { A: a }
build:
  <<: *base
  stage: build
test:
  extends: .base
  stage: test
  parallel: 2
  needs: [build]
  inherit:
    default: false
`,
      { "ci/extra.yml": "extra:\n  stage: test\n  script: echo extra\n" },
    );
    expect(config.stages).toEqual([".pre", "build", "test", ".post"]);
    expect(config.jobs.map((j) => j.name)).toEqual(["extra", "build", "test 1/2", "test 2/2"]);
    const build = config.jobs.find((j) => j.name === "build")!;
    expect(build.beforeScript).toEqual(["echo default"]);
    expect(build.tags).toEqual(["linux"]);
    expect(build.variables).toEqual({ A: "a" });
    const test = config.jobs.find((j) => j.name === "test 1/2")!;
    expect(test.beforeScript).toEqual([]);
    expect(test.needs).toEqual([{ name: "build", artifacts: true, optional: false }]);
    expect(test.node).toEqual({ index: 1, total: 2 });
  });

  it("seeds rules, only/except and needs", async () => {
    const config = await parse(`
a:
  script: x
  rules:
    - if: '$CI_COMMIT_BRANCH == "main" && $CI_PIPELINE_SOURCE =~ /^pu/'
      when: manual
b:
  script: x
  rules:
    - changes: ["docs/**/*"]
      when: never
    - when: on_success
c:
  script: x
  only: [tags]
d:
  script: x
  except:
    refs: [main]
e:
  script: x
  rules:
    - exists: ["package.json"]
  needs: [a]
`);
    const jobs = await seedJobs(config, ctx());
    expect(jobs.map((j) => [j.spec.name, j.when, j.allowFailure])).toEqual([
      ["a", "manual", false],
      ["e", "on_success", false],
    ]);
    await expect(seedJobs(config, ctx({ files: async () => [], changedPaths: ["x"] }))).resolves.toHaveLength(2);
  });

  it("refuses needs on a job that rules dropped", async () => {
    const config = await parse("a:\n  script: x\n  rules:\n    - when: never\nb:\n  script: x\n  needs: [a]\n");
    await expect(seedJobs(config, ctx())).rejects.toThrow(
      "'b' job needs 'a' job, but 'a' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional.",
    );
  });

  it("resolves !reference tags after includes and extends, flattening rules", async () => {
    const config = await parse(
      `
include: [{ local: ci/shared.yml }]
.setup:
  script: [echo setup, !reference [.more, script]]
.more:
  script: echo more
build:
  script:
    - !reference [.setup, script]
    - echo build
  needs: !reference [.tested, needs]
  rules:
    - !reference [.rules, rules]
    - when: manual
`,
      { "ci/shared.yml": ".rules:\n  rules:\n    - if: $SKIP\n      when: never\n.base:\n  needs: []\n.tested:\n  extends: .base\n" },
    );
    const build = config.jobs[0];
    expect(build.script).toEqual(["echo setup", "echo more", "echo build"]);
    expect(build.needs).toEqual([]);
    expect(build.rules).toEqual([{ if: "$SKIP", when: "never" }, { when: "manual" }]);
    expect(await error("a:\n  script: [!reference [.x, script]]\n")).toBe('!reference [".x", "script"] could not be found');
    expect(await error("a: !reference [b]\nb: !reference [a]\nc:\n  script: x\n")).toBe('!reference ["b"] is part of a circular chain');
  });

  it("evaluates expressions", () => {
    expect(evaluate('$A == "x" || $B', { A: "y", B: "1" })).toBe(true);
    expect(evaluate("$A && ($B || $C)", { A: "1", C: "" })).toBe(false);
    expect(evaluate("$A =~ /^re.*/i", { A: "Release" })).toBe(true);
    expect(evaluate("$A != null", {})).toBe(false);
    expect(evaluate("$A !~ $P", { A: "abc", P: "/b/" })).toBe(false);
  });
  void none;
});
