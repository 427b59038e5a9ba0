# Epics through python-gitlab (GitLab's ee/lib/api/epics.rb, epic_issues.rb, notes.rb): create,
# update with labels, get, list (a parent group lists its subgroups' epics), notes, epic issues.
import pytest

from support import unique


@pytest.fixture
def epic(group):
    made = group.epics.create({"title": unique("epic"), "description": "made by python-gitlab"})
    yield made
    made.delete()


def test_create_update_get_list(group):
    created = group.epics.create({"title": "Test epic"})
    try:
        assert created.state == "opened"
        assert created.group_id == group.id
        created.title = "Fixed title"
        created.labels = ["label1", "label2"]
        created.save()
        fetched = group.epics.get(created.iid)
        assert fetched.title == "Fixed title"
        assert fetched.labels == ["label1", "label2"]
        assert created.iid in [e.iid for e in group.epics.list(get_all=True)]
        assert [e.iid for e in group.epics.list(labels="label1", get_all=True)] == [created.iid]
        created.state_event = "close"
        created.save()
        assert group.epics.get(created.iid).state == "closed"
    finally:
        created.delete()


def test_epic_notes(epic):
    assert epic.notes.list() == []
    note = epic.notes.create({"body": "Test note"})
    assert [n.body for n in epic.notes.list()] == ["Test note"]
    note.body = "edited"
    note.save()
    assert epic.notes.get(note.id).body == "edited"


def test_epic_issues(gl, group, epic):
    project = gl.projects.create({"name": unique("py-epic-issues"), "namespace_id": group.id})
    try:
        issue = project.issues.create({"title": "An issue of the epic"})
        assert epic.issues.list() == []
        link = epic.issues.create({"issue_id": issue.id})
        assert [i.id for i in epic.issues.list()] == [issue.id]
        assert project.issues.get(issue.iid).epic_iid == epic.iid
        link.delete()
        assert epic.issues.list() == []
    finally:
        project.delete()


def test_parent_group_lists_a_subgroup_epic(gl, group):
    path = unique("sg")
    subgroup = gl.groups.create({"name": path, "path": path, "parent_id": group.id})
    try:
        nested = subgroup.epics.create({"title": unique("Nested epic"), "description": "Nested epic"})
        found = [e for e in group.epics.list(search=nested.title, get_all=True) if e.id == nested.id]
        assert len(found) == 1
        assert found[0].group_id == subgroup.id
        # python-gitlab 3.12 saves an epic through the manager it was listed by (the parent group's
        # path with the subgroup epic's iid), so the update goes through the subgroup.
        nested.labels = ["nested"]
        nested.save()
        assert "nested" in subgroup.epics.get(nested.iid).labels
    finally:
        subgroup.delete()
