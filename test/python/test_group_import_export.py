# Group export and import through python-gitlab (GitLab's lib/api/group_export.rb, group_import.rb),
# after python-gitlab v3.12.0's functional test_import_export.py (its group part).
import time

import gitlab
import pytest

from support import unique


@pytest.fixture
def unlimited_downloads(gl):
    """GitLab allows one export download a minute per user and group; polling the download needs more."""
    settings = gl.settings.get()
    before = settings.group_download_export_limit
    settings.group_download_export_limit = 0
    settings.save()
    yield
    settings.group_download_export_limit = before
    settings.save()


def wait_for(check, what, seconds=30):
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        time.sleep(0.5)


def test_group_import_export(gl, tmp_path, unlimited_downloads):
    path = unique("pyexport")
    source = gl.groups.create({"name": path, "path": path})
    imported = None
    try:
        source.labels.create({"name": "exported-label", "color": "#ff0000"})
        source.milestones.create({"title": "exported-milestone"})
        gl.groups.create({"name": "child", "path": "child", "parent_id": source.id})

        export = source.exports.create()
        assert export.message == "202 Accepted"

        archive = tmp_path / "gitlab-group-export.tgz"

        # GitLab has no group export status: the download answers 404 until the archive is there.
        def downloaded():
            try:
                with open(archive, "wb") as f:
                    export.download(streamed=True, action=f.write)
                return True
            except gitlab.exceptions.GitlabGetError as error:
                assert error.response_code == 404
                return False

        wait_for(downloaded, "the export")
        assert archive.stat().st_size > 0

        import_path = unique("pyimported")
        with open(archive, "rb") as f:
            output = gl.groups.import_group(f, import_path, "Imported Group")
        assert output["message"] == "202 Accepted"

        imported = gl.groups.get(import_path)
        assert imported.path == import_path
        assert imported.name == "Imported Group"
        wait_for(lambda: [l.name for l in imported.labels.list(include_ancestor_groups=False)] == ["exported-label"], "the import")
        assert [m.title for m in imported.milestones.list()] == ["exported-milestone"]
        assert [g.path for g in imported.subgroups.list()] == ["child"]
    finally:
        source.delete()
        if imported is not None:
            imported.delete()


def test_group_export_needs_an_owner(gl, group, make_user):
    maintainer = make_user()
    group.members.create({"user_id": maintainer.id, "access_level": gitlab.const.AccessLevel.MAINTAINER})
    token = maintainer.impersonationtokens.create({"name": "export", "scopes": ["api"]})
    as_maintainer = gitlab.Gitlab(gl.url, private_token=token.token)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        as_maintainer.groups.get(group.id, lazy=True).exports.create()
    assert refused.value.response_code == 403
