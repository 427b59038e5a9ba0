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


def test_project_search_scopes(project):
    title = unique("scope")
    milestone = project.milestones.create({"title": title})
    assert [m["id"] for m in project.search("milestones", title)] == [milestone.id]
    issue = project.issues.create({"title": unique("noted")})
    note_body = unique("remark")
    issue.notes.create({"body": note_body})
    assert [n["body"] for n in project.search("notes", note_body)] == [note_body]
    commit_message = unique("message")
    project.files.create(
        {"file_path": f"{commit_message}.txt", "branch": project.default_branch, "content": "needle in a file\n", "commit_message": commit_message}
    )
    assert [c["title"] for c in project.search("commits", commit_message)] == [commit_message]
    blobs = project.search("blobs", "needle in a file")
    assert f"{commit_message}.txt" in [b["path"] for b in blobs]
    wiki_title = unique("wikisearch")
    project.wikis.create({"title": wiki_title, "content": "wiki needle"})
    assert wiki_title in [b["path"] for b in project.search("wiki_blobs", "wiki needle")][0]


def test_group_search_scopes(gl, group):
    project = gl.projects.create({"name": unique("pysearch"), "namespace_id": group.id})
    try:
        title = unique("groupissue")
        issue = project.issues.create({"title": title})
        assert [i["id"] for i in group.search("issues", title)] == [issue.id]
        # GitLab 15.4's group search finds the milestones of the group's projects, not the group's own.
        milestone = project.milestones.create({"title": title})
        group.milestones.create({"title": f"{title}-of-the-group"})
        assert [m["id"] for m in group.search("milestones", title)] == [milestone.id]
        with pytest.raises(gitlab.exceptions.GitlabSearchError) as raised:
            group.search("blobs", "x")
        assert raised.value.response_code == 400
    finally:
        project.delete()


def test_search_users(gl, user):
    assert [u["id"] for u in gl.search("users", user.username)] == [user.id]
