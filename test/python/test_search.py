# Search through python-gitlab (GitLab's lib/api/search.rb): instance, group and project scopes.
import gitlab
import pytest

from support import unique


def test_global_search(gl, project):
    found = gl.search("projects", project.name)
    assert project.id in [p["id"] for p in found]
    with pytest.raises(gitlab.exceptions.GitlabSearchError) as raised:
        gl.search("blobs", "anything")
    assert raised.value.response_code == 400


def test_group_search(gl, group):
    project = gl.projects.create({"name": unique("pysearch"), "namespace_id": group.id})
    try:
        assert [p["id"] for p in group.search("projects", project.name)] == [project.id]
    finally:
        project.delete()


def test_project_search(project):
    title = unique("needle")
    issue = project.issues.create({"title": title})
    assert [i["iid"] for i in project.search("issues", title)] == [issue.iid]
    assert project.search("issues", unique("nothing")) == []
    blobs = project.search("blobs", "README")
    assert isinstance(blobs, list)
