# Projects through python-gitlab (GitLab's lib/api/projects.rb and neighbours): create, list filters,
# HEAD, pagination, members, labels, milestones, hooks, badges, stars, forks, transfer, uploads.
import gitlab
import pytest
from gitlab.const import AccessLevel

from support import unique


def test_create_list_and_search(gl, user):
    name = unique("py-admin-project")
    mine = gl.projects.create({"name": name})
    theirs = gl.projects.create({"name": unique("py-sudo-project")}, sudo=user.id)
    try:
        assert mine.path == name
        assert mine.namespace["path"] == "root"
        assert theirs.namespace["path"] == user.username
        assert [p.id for p in gl.projects.list(search=name)] == [mine.id]
        owned = {p.id for p in gl.projects.list(owned=True, get_all=True)}
        assert mine.id in owned and theirs.id not in owned
        listed = gl.projects.list(get_all=True)
        assert {mine.id, theirs.id} <= {p.id for p in listed}
        assert len(listed) == len(list(gl.projects.list(iterator=True)))
    finally:
        mine.delete()
        theirs.delete()


def test_head(gl, project):
    assert int(gl.projects.head()["x-total"]) >= 1
    assert gl.projects.head(project.id)["content-type"] == "application/json"


def test_pagination(gl, project):
    other = gl.projects.create({"name": unique("py-page")})
    try:
        first = gl.projects.list(per_page=1, page=1)
        second = gl.projects.list(per_page=1, page=2)
        assert len(first) == 1 and len(second) == 1
        assert first[0].id != second[0].id
        pages = gl.projects.list(per_page=1, iterator=True)
        assert pages.total_pages == pages.total >= 2
    finally:
        other.delete()


def test_get_by_path_and_update(gl, project):
    fetched = gl.projects.get(project.path_with_namespace)
    assert fetched.id == project.id
    assert fetched.default_branch == "main"
    fetched.description = "described by python-gitlab"
    fetched.save()
    assert gl.projects.get(project.id).description == "described by python-gitlab"


def test_project_members(project, user):
    member = project.members.create({"user_id": user.id, "access_level": AccessLevel.DEVELOPER})
    assert member.access_level == AccessLevel.DEVELOPER
    assert user.id in [m.id for m in project.members.list()]
    member.access_level = AccessLevel.MAINTAINER
    member.save()
    assert project.members.get(user.id).access_level == AccessLevel.MAINTAINER
    assert user.id in [m.id for m in project.members_all.list(get_all=True)]
    member.delete()
    assert user.id not in [m.id for m in project.members.list()]


def test_project_labels(project):
    label = project.labels.create({"name": "py-label", "color": "#778899"})
    assert label.name in [l.name for l in project.labels.list()]
    assert project.labels.get("py-label").color == "#778899"
    label.new_name = "Label:that needs:encoding"
    label.save()
    assert label.name == "Label:that needs:encoding"
    label.subscribe()
    assert label.subscribed is True
    label.unsubscribe()
    assert label.subscribed is False
    label.delete()


def test_project_milestones(project):
    milestone = project.milestones.create({"title": unique("milestone")})
    assert milestone.id in [m.id for m in project.milestones.list()]
    milestone.state_event = "close"
    milestone.save()
    assert project.milestones.get(milestone.id).state == "closed"
    assert list(milestone.issues()) == []
    assert list(milestone.merge_requests()) == []


def test_project_hooks(project):
    hook = project.hooks.create({"url": "http://hook.example.com/receive"})
    assert hook.id in [h.id for h in project.hooks.list()]
    hook.note_events = True
    hook.save()
    assert project.hooks.get(hook.id).note_events is True
    hook.delete()


def test_project_badges(project):
    badge = project.badges.create({"link_url": "http://example.com/l", "image_url": "http://example.com/i.svg"})
    badge.image_url = "http://another.example.com/i.svg"
    badge.save()
    assert project.badges.get(badge.id).image_url == "http://another.example.com/i.svg"
    badge.delete()


def test_project_stars(project):
    project.star()
    assert project.star_count == 1
    project.unstar()
    assert project.star_count == 0


def test_project_fork(gl, project, user):
    fork = project.forks.create({"namespace": user.username})
    try:
        fetched = gl.projects.get(fork.id)
        assert fetched.forked_from_project["id"] == project.id
        assert fork.id in [f.id for f in project.forks.list()]
    finally:
        gl.projects.delete(fork.id)


def test_project_transfer(gl, group):
    moving = gl.projects.create({"name": unique("py-transfer")})
    try:
        moving.transfer(group.id)
        assert gl.projects.get(moving.id).namespace["path"] == group.full_path
        moving.transfer(gl.user.username)
        assert gl.projects.get(moving.id).namespace["path"] == gl.user.username
    finally:
        moving.delete()


def test_project_upload(project):
    uploaded = project.upload("notes.txt", "uploaded content")
    assert uploaded["alt"] == "notes.txt"
    assert uploaded["url"].startswith("/uploads/")
    assert uploaded["url"].endswith("/notes.txt")
    assert uploaded["markdown"] == f"[notes.txt]({uploaded['url']})"


def test_project_issues(project):
    issue = project.issues.create({"title": "py issue", "description": "made by python-gitlab"})
    assert issue.iid in [i.iid for i in project.issues.list()]
    issue.state_event = "close"
    issue.save()
    assert project.issues.get(issue.iid).state == "closed"
    note = issue.notes.create({"body": "a note"})
    assert note.body == "a note"


def test_project_custom_attributes(gl, project):
    value = unique("pvalue")
    project.customattributes.set("py_key", value)
    assert [p.id for p in gl.projects.list(custom_attributes={"py_key": value})] == [project.id]
    project.customattributes.delete("py_key")


def test_project_delete(gl):
    doomed = gl.projects.create({"name": unique("py-doomed")})
    doomed.delete()
    with pytest.raises(gitlab.GitlabGetError) as error:
        gl.projects.get(doomed.id)
    assert error.value.response_code == 404
