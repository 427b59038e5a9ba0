# Groups through python-gitlab (GitLab's lib/api/groups.rb, members.rb): create, subgroups, search,
# skip_groups, members, share/unshare, transfer, labels, milestones, badges, custom attributes.
import gitlab
import pytest
from gitlab.const import AccessLevel

from support import unique


def new_group(gl, **extra):
    path = unique("pygrp")
    return gl.groups.create({"name": path, "path": path, **extra})


def test_create_subgroups_and_search(gl):
    parent = new_group(gl)
    try:
        child = new_group(gl, parent_id=parent.id)
        assert child.parent_id == parent.id
        assert child.full_path == f"{parent.full_path}/{child.path}"
        assert [g.id for g in parent.subgroups.list()] == [child.id]
        assert [g.id for g in parent.descendant_groups.list()] == [child.id]
        found = gl.groups.list(search=parent.name)
        assert parent.id in [g.id for g in found]
        assert child.id not in [g.id for g in gl.groups.list(search=parent.name, top_level_only=True)]
        everything = {g.id for g in gl.groups.list(get_all=True)}
        assert {parent.id, child.id} <= everything
        skipped = {g.id for g in gl.groups.list(get_all=True, skip_groups=[child.id])}
        assert child.id not in skipped and parent.id in skipped
    finally:
        parent.delete()


def test_group_get_update(gl, group):
    fetched = gl.groups.get(group.id)
    assert fetched.full_path == group.path
    fetched.description = "described by python-gitlab"
    fetched.save()
    assert gl.groups.get(group.full_path).description == "described by python-gitlab"


def test_group_members(gl, group, make_user):
    owner = make_user()
    guest = make_user()
    group.members.create({"user_id": owner.id, "access_level": AccessLevel.OWNER})
    group.members.create({"user_id": guest.id, "access_level": AccessLevel.GUEST})
    ids = {m.id for m in group.members.list(get_all=True)}
    assert {owner.id, guest.id} <= ids
    only = group.members.list(user_ids=[owner.id, 999999])
    assert [m.id for m in only] == [owner.id]
    member = group.members.get(guest.id)
    member.access_level = AccessLevel.MAINTAINER
    member.save()
    assert group.members.get(guest.id).access_level == AccessLevel.MAINTAINER
    assert guest.id in [m.id for m in group.members_all.list(get_all=True)]
    group.members.delete(guest.id)
    assert guest.id not in [m.id for m in group.members.list(get_all=True)]
    with pytest.raises(gitlab.GitlabCreateError) as error:
        group.members.create({"user_id": owner.id, "access_level": AccessLevel.OWNER})
    assert error.value.response_code == 409


def test_group_share_and_unshare(gl):
    shared = new_group(gl)
    first = new_group(gl)
    second = new_group(gl)
    try:
        shared.share(first.id, AccessLevel.DEVELOPER)
        shared.share(second.id, AccessLevel.MAINTAINER)
        links = gl.groups.get(shared.id).shared_with_groups
        assert sorted((l["group_id"], l["group_access_level"]) for l in links) == sorted(
            [(first.id, AccessLevel.DEVELOPER), (second.id, AccessLevel.MAINTAINER)]
        )
        shared.unshare(first.id)
        links = gl.groups.get(shared.id).shared_with_groups
        assert [l["group_id"] for l in links] == [second.id]
    finally:
        for g in (shared, first, second):
            g.delete()


def test_group_transfer(gl, group):
    moving = new_group(gl)
    try:
        moving.transfer(group.id)
        moved = gl.groups.get(moving.id)
        assert moved.parent_id == group.id
        assert moved.full_path == f"{group.full_path}/{moving.path}"
        moving.transfer()
        back = gl.groups.get(moving.id)
        assert back.parent_id is None
        assert back.full_path == back.path
    finally:
        moving.delete()


def test_group_labels(group):
    name = unique("grplabel")
    group.labels.create({"name": name, "description": "bar", "color": "#112233"})
    label = group.labels.get(name)
    assert label.description == "bar"
    label.description = "baz"
    label.save()
    assert group.labels.get(name).description == "baz"
    label.new_name = "Label:that needs:encoding"
    label.save()
    assert label.name == "Label:that needs:encoding"
    assert group.labels.get("Label:that needs:encoding").description == "baz"
    label.delete()
    assert "Label:that needs:encoding" not in [l.name for l in group.labels.list(get_all=True)]


def test_group_milestones(group):
    milestone = group.milestones.create({"title": unique("grpmilestone")})
    assert milestone.id in [m.id for m in group.milestones.list()]
    milestone.due_date = "2020-01-01"
    milestone.save()
    milestone.state_event = "close"
    milestone.save()
    fetched = group.milestones.get(milestone.id)
    assert fetched.state == "closed"
    assert fetched.due_date == "2020-01-01"
    assert list(fetched.issues()) == []
    assert list(fetched.merge_requests()) == []


def test_group_badges(group):
    badge = group.badges.create({"link_url": "http://example.com/link", "image_url": "http://example.com/img.svg"})
    assert badge.id in [b.id for b in group.badges.list()]
    badge.image_url = "http://another.example.com/img.svg"
    badge.save()
    assert group.badges.get(badge.id).image_url == "http://another.example.com/img.svg"
    badge.delete()
    assert badge.id not in [b.id for b in group.badges.list()]


def test_group_custom_attributes(gl, group):
    value = unique("gvalue")
    attr = group.customattributes.set("py_key", value)
    assert attr.value == value
    assert [g.id for g in gl.groups.list(custom_attributes={"py_key": value})] == [group.id]
    group.customattributes.delete("py_key")
    assert group.customattributes.list() == []


def test_group_projects(gl, group):
    inside = gl.projects.create({"name": unique("py-in-group"), "namespace_id": group.id})
    try:
        assert inside.namespace["id"] == group.id
        assert inside.id in [p.id for p in group.projects.list(get_all=True)]
    finally:
        inside.delete()


def test_group_notification_settings(group):
    settings = group.notificationsettings.get()
    settings.level = "disabled"
    settings.save()
    assert group.notificationsettings.get().level == "disabled"


def test_group_delete(gl):
    doomed = new_group(gl)
    doomed.delete()
    with pytest.raises(gitlab.GitlabGetError) as error:
        gl.groups.get(doomed.id)
    assert error.value.response_code == 404
