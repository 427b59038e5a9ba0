# The repository through python-gitlab (GitLab's lib/api/repositories.rb, files.rb, commits.rb,
# branches.rb, tags.rb): files (create, get, update, delete, HEAD, raw, blame), commits (create with
# actions, list, diff, refs, comments, cherry-pick, revert), branches, tags, compare, tree, raw blobs,
# archives in every format, merge base, contributors.
import base64
import io
import tarfile
import zipfile

import gitlab
import pytest

from support import unique


@pytest.fixture(scope="module")
def repo(gl):
    """A project of its own: these tests read the history they make in order."""
    created = gl.projects.create({"name": unique("py-repo"), "initialize_with_readme": True})
    yield created
    created.delete()


def test_files_create_get_update_delete(repo):
    created = repo.files.create(
        {"file_path": "docs/guide.md", "branch": "main", "content": "Initial content", "commit_message": "Add guide"}
    )
    assert created.file_path == "docs/guide.md"
    assert created.branch == "main"

    guide = repo.files.get(file_path="docs/guide.md", ref="main")
    assert guide.decode() == b"Initial content"
    assert guide.encoding == "base64"
    assert guide.size == len("Initial content")

    guide.content = base64.b64encode(b"Improved content").decode()
    guide.encoding = "base64"
    guide.save(branch="main", commit_message="Improve guide")
    assert repo.files.get(file_path="docs/guide.md", ref="main").decode() == b"Improved content"

    guide.delete(branch="main", commit_message="Remove guide")
    with pytest.raises(gitlab.GitlabGetError) as error:
        repo.files.get(file_path="docs/guide.md", ref="main")
    assert error.value.response_code == 404


def test_files_head_raw_and_blame(repo):
    repo.files.create(
        {"file_path": "README.rst", "branch": "main", "content": "line one\nline two\n", "commit_message": "Add README.rst"}
    )
    headers = repo.files.head("README.rst", ref="main")
    assert headers["X-Gitlab-File-Path"] == "README.rst"
    assert headers["X-Gitlab-File-Name"] == "README.rst"
    assert headers["X-Gitlab-Ref"] == "main"
    assert headers["X-Gitlab-Size"] == str(len("line one\nline two\n"))

    assert repo.files.raw(file_path="README.rst", ref="main") == b"line one\nline two\n"
    # python-gitlab 3.12 always sends ref; without it the server reads the default branch.
    raw = repo.manager.gitlab.http_get(f"/projects/{repo.id}/repository/files/README.rst/raw", raw=True)
    assert raw.content == b"line one\nline two\n"

    blame = repo.files.blame(file_path="README.rst", ref="main")
    assert len(blame) == 1
    assert blame[0]["lines"] == ["line one", "line two"]
    assert blame[0]["commit"]["message"].startswith("Add README.rst")


def test_create_commit_with_actions(repo):
    commit = repo.commits.create(
        {
            "branch": "main",
            "commit_message": "Several files at once",
            "actions": [
                {"action": "create", "file_path": "a.txt", "content": "a\n"},
                {"action": "create", "file_path": "b.txt", "content": base64.b64encode(b"b\n").decode(), "encoding": "base64"},
            ],
        }
    )
    assert commit.title == "Several files at once"
    latest = repo.commits.list()[0]
    assert latest.id == commit.id
    diffs = latest.diff()
    assert sorted(d["new_path"] for d in diffs) == ["a.txt", "b.txt"]
    assert all("@@" in d["diff"] for d in diffs)
    assert [r["name"] for r in commit.refs()] == ["main"]
    assert commit.merge_requests() == []
    assert repo.commits.get(commit.id).parent_ids == [commit.parent_ids[0]]


def test_commit_comments_and_statuses(repo):
    commit = repo.commits.list()[0]
    commit.comments.create({"note": "a commit comment"})
    assert [c.note for c in commit.comments.list()] == ["a commit comment"]
    status = commit.statuses.create({"state": "success", "sha": commit.id, "name": "py-check"})
    assert status.status == "success"
    assert "py-check" in [s.name for s in commit.statuses.list()]


def test_commit_signature_of_unsigned_commit(repo):
    commit = repo.commits.list()[0]
    with pytest.raises(gitlab.GitlabGetError) as error:
        commit.signature()
    assert error.value.response_code == 404
    assert "404 Signature Not Found" in str(error.value)


def test_commits_on_other_branches_need_all(repo):
    other = repo.commits.create(
        {
            "branch": "side",
            "start_branch": "main",
            "commit_message": "On a side branch",
            "actions": [{"action": "create", "file_path": "side.txt", "content": "side\n"}],
        }
    )
    default_only = [c.id for c in repo.commits.list(get_all=True)]
    everything = [c.id for c in repo.commits.list(get_all=True, all=True)]
    assert other.id not in default_only
    assert other.id in everything
    assert len(everything) == len(default_only) + 1
    assert [c.id for c in repo.commits.list(ref_name="side", per_page=1, get_all=False)] == [other.id]


def test_branches(repo):
    name = "my.branch.name"
    branch = repo.branches.create({"branch": name, "ref": "main"})
    assert branch.name == name
    assert branch.default is False
    assert branch.merged is False
    fetched = repo.branches.get(name)
    assert fetched.commit["id"] == repo.branches.get("main").commit["id"]
    assert name in [b.name for b in repo.branches.list(search="branch.name")]
    with pytest.raises(gitlab.GitlabCreateError) as error:
        repo.branches.create({"branch": name, "ref": "main"})
    assert error.value.response_code == 400
    assert error.value.error_message == "Branch already exists"
    branch.delete()
    with pytest.raises(gitlab.GitlabGetError):
        repo.branches.get(name)


def test_tags(repo):
    lightweight = repo.tags.create({"tag_name": "v1.0", "ref": "main"})
    assert lightweight.name == "v1.0"
    assert lightweight.message in ("", None)
    annotated = repo.tags.create({"tag_name": "v1.1", "ref": "main", "message": "Release 1.1"})
    assert annotated.message == "Release 1.1"
    assert annotated.target != annotated.commit["id"]
    names = [t.name for t in repo.tags.list()]
    assert {"v1.0", "v1.1"} <= set(names)
    assert repo.tags.get("v1.1").commit["id"] == repo.branches.get("main").commit["id"]
    lightweight.delete()
    assert "v1.0" not in [t.name for t in repo.tags.list()]


def test_compare(repo):
    base = repo.commits.list(ref_name="main")[0].id
    repo.commits.create(
        {
            "branch": "compare-me",
            "start_branch": "main",
            "commit_message": "Change for compare",
            "actions": [{"action": "create", "file_path": "compare.txt", "content": "x\n"}],
        }
    )
    result = repo.repository_compare("main", "compare-me")
    assert [c["title"] for c in result["commits"]] == ["Change for compare"]
    assert [d["new_path"] for d in result["diffs"]] == ["compare.txt"]
    assert result["diffs"][0]["new_file"] is True
    assert result["compare_same_ref"] is False
    same = repo.repository_compare(base, base)
    assert same["commits"] == [] and same["diffs"] == []
    assert same["compare_same_ref"] is True


def test_tree_and_blobs(repo):
    repo.files.create(
        {"file_path": "dir/inner.txt", "branch": "main", "content": "inner content", "commit_message": "Add dir"}
    )
    tree = repo.repository_tree()
    by_name = {entry["name"]: entry for entry in tree}
    assert by_name["dir"]["type"] == "tree"
    assert by_name["README.md"]["type"] == "blob"
    inner = repo.repository_tree(path="dir")
    assert [(e["name"], e["path"], e["type"]) for e in inner] == [("inner.txt", "dir/inner.txt", "blob")]
    recursive = [e["path"] for e in repo.repository_tree(recursive=True, get_all=True)]
    assert "dir/inner.txt" in recursive

    blob_id = inner[0]["id"]
    assert repo.repository_raw_blob(blob_id) == b"inner content"
    blob = repo.repository_blob(blob_id)
    assert base64.b64decode(blob["content"]) == b"inner content"
    assert blob["size"] == len("inner content")
    assert blob["sha"] == blob_id


@pytest.mark.parametrize(
    "fmt,check",
    [
        (None, tarfile.is_tarfile),
        ("tar", tarfile.is_tarfile),
        ("tar.gz", tarfile.is_tarfile),
        ("tgz", tarfile.is_tarfile),
        ("tar.bz2", tarfile.is_tarfile),
        ("tbz", tarfile.is_tarfile),
        ("tbz2", tarfile.is_tarfile),
        ("tb2", tarfile.is_tarfile),
        ("bz2", tarfile.is_tarfile),
        ("zip", zipfile.is_zipfile),
    ],
)
def test_archive_formats(repo, fmt, check):
    data = repo.repository_archive(format=fmt) if fmt else repo.repository_archive()
    assert isinstance(data, bytes)
    assert check(io.BytesIO(data))


def test_archive_content_and_sha(repo):
    sha = repo.branches.get("main").commit["id"]
    by_sha = repo.repository_archive(sha=sha, format="zip")
    by_branch = repo.repository_archive(sha="main", format="zip")
    names = zipfile.ZipFile(io.BytesIO(by_sha)).namelist()
    # The top folder is <project path>-<ref>-<sha>, as GitLab names it.
    assert names[0] == f"{repo.path}-{sha}-{sha}/"
    assert zipfile.ZipFile(io.BytesIO(by_branch)).namelist()[0] == f"{repo.path}-main-{sha}/"
    assert any(name.endswith("/README.md") for name in names)
    strip = lambda entries: sorted(e.split("/", 1)[1] for e in entries)
    assert strip(names) == strip(zipfile.ZipFile(io.BytesIO(by_branch)).namelist())
    with tarfile.open(fileobj=io.BytesIO(repo.repository_archive(sha=sha))) as tar:
        readme = next(m for m in tar.getmembers() if m.name.endswith("/README.md"))
        assert tar.extractfile(readme).read() == repo.files.raw(file_path="README.md", ref=sha)


def test_cherry_pick_and_revert(repo):
    picked_from = repo.commits.create(
        {
            "branch": "pick-source",
            "start_branch": "main",
            "commit_message": "To be picked",
            "actions": [{"action": "create", "file_path": "picked.txt", "content": "picked\n"}],
        }
    )
    repo.branches.create({"branch": "pick-target", "ref": "main"})
    # python-gitlab 3.12's cherry_pick() returns nothing: the commit is read from the branch.
    picked_from.cherry_pick(branch="pick-target")
    result = repo.commits.list(ref_name="pick-target", per_page=1, get_all=False)[0].attributes
    assert result["message"].startswith(f"To be picked\n\n(cherry picked from commit {picked_from.id})")
    with pytest.raises(gitlab.GitlabCherryPickError):
        picked_from.cherry_pick(branch="pick-target")

    picked = repo.commits.get(result["id"])
    reverted = picked.revert(branch="pick-target")
    assert reverted["message"] == f'Revert "To be picked"\n\nThis reverts commit {picked.id}'
    with pytest.raises(gitlab.GitlabRevertError):
        picked.revert(branch="pick-target")


def test_merge_base_and_contributors(repo):
    refs = [c.id for c in repo.commits.list(all=True, get_all=True)]
    base = repo.repository_merge_base(refs[:2])
    assert base["id"] in refs
    with pytest.raises(gitlab.GitlabGetError) as error:
        repo.repository_merge_base([refs[0]])
    assert "Provide at least 2 refs" in str(error.value)
    contributors = repo.repository_contributors()
    assert contributors and contributors[0]["commits"] >= 1


def test_snapshot(repo):
    assert tarfile.is_tarfile(io.BytesIO(repo.snapshot()))
