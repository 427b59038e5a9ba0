# Merge requests through python-gitlab (GitLab's lib/api/merge_requests.rb, merge_request_diffs.rb,
# notes.rb, discussions.rb, ee/lib/api/merge_request_approvals.rb): create, get, list, commits,
# changes, diffs, notes, discussions, labels, approvals, merge (twice, removing the source branch,
# with a message over 10,000 characters), merge when the pipeline succeeds and its cancellation,
# rebase, merge_ref.
import time

import gitlab
import pytest
from gitlab.const import AccessLevel

from support import unique


def wait_for(predicate, what, attempts=300, pause=0.2):
    """Polls for an outcome that happens after the request (a queue consumer's work)."""
    for _ in range(attempts):
        value = predicate()
        if value:
            return value
        time.sleep(pause)
    raise AssertionError(f"gave up waiting for {what}")


def test_create_get_and_list(project, merge_request):
    mr = merge_request(unique("feature"), description="made by python-gitlab")
    assert mr.state == "opened"
    assert mr.target_branch == project.default_branch
    assert mr.description == "made by python-gitlab"
    assert project.mergerequests.get(mr.iid).id == mr.id
    assert project.mergerequests.get(str(mr.iid)).id == mr.id
    lazy = project.mergerequests.get(mr.iid, lazy=True)
    assert lazy.iid == mr.iid
    assert mr.iid in [m.iid for m in project.mergerequests.list(state="opened", get_all=True)]
    assert mr.iid in [m.iid for m in project.mergerequests.list(source_branch=mr.source_branch)]
    # A second open merge request for the same source branch is refused.
    with pytest.raises(gitlab.GitlabCreateError) as error:
        project.mergerequests.create({"source_branch": mr.source_branch, "target_branch": "main", "title": "again"})
    assert error.value.response_code == 409
    assert f"!{mr.iid}" in str(error.value)


def test_commits_changes_diffs_and_participants(project, merge_request):
    mr = merge_request(unique("changes"))
    commits = list(mr.commits())
    assert [c.title for c in commits] == [f"Add {mr.source_branch}.txt"]
    changes = mr.changes()
    assert [c["new_path"] for c in changes["changes"]] == [f"{mr.source_branch}.txt"]
    assert changes["changes"][0]["new_file"] is True
    assert f"+content of {mr.source_branch}" in changes["changes"][0]["diff"]
    versions = mr.diffs.list()
    assert len(versions) == 1
    version = mr.diffs.get(versions[0].id)
    assert version.head_commit_sha == commits[0].id
    assert [d["new_path"] for d in version.diffs] == [f"{mr.source_branch}.txt"]
    assert [p["username"] for p in mr.participants()] == ["root"]


def test_notes_and_discussions(project, merge_request):
    mr = merge_request(unique("notes"))
    note = mr.notes.create({"body": "first note"})
    assert note.body == "first note"
    note.body = "edited note"
    note.save()
    assert mr.notes.get(note.id).body == "edited note"
    assert "edited note" in [n.body for n in mr.notes.list(get_all=True)]
    note.delete()
    assert note.id not in [n.id for n in mr.notes.list(get_all=True)]

    discussion = mr.discussions.create({"body": "a thread"})
    assert discussion.id in [d.id for d in mr.discussions.list(get_all=True)]
    reply = discussion.notes.create({"body": "a reply"})
    fetched = discussion.notes.get(reply.id)
    fetched.body = "updated reply"
    fetched.save()
    thread = mr.discussions.get(discussion.id)
    assert [n["body"] for n in thread.attributes["notes"]] == ["a thread", "updated reply"]
    fetched.delete()
    assert len(mr.discussions.get(discussion.id).attributes["notes"]) == 1


def test_labels_and_label_events(project, merge_request):
    mr = merge_request(unique("labels"))
    mr.labels = ["py-mr-label"]
    mr.save()
    assert project.mergerequests.get(mr.iid).labels == ["py-mr-label"]
    events = mr.resourcelabelevents.list()
    assert [(e.action, e.label["name"]) for e in events] == [("add", "py-mr-label")]
    assert mr.resourcelabelevents.get(events[0].id).id == events[0].id


def test_milestone_events_and_closing_issues(project, merge_request):
    issue = project.issues.create({"title": unique("closed by a merge request")})
    milestone = project.milestones.create({"title": unique("mr-milestone")})
    mr = merge_request(unique("closes"), description=f"Closes #{issue.iid}")
    assert [i.iid for i in mr.closes_issues()] == [issue.iid]
    mr.milestone_id = milestone.id
    mr.save()
    events = mr.resourcemilestoneevents.list()
    assert [(e.action, e.milestone["id"]) for e in events] == [("add", milestone.id)]
    assert mr.resourcemilestoneevents.get(events[0].id).milestone["title"] == milestone.title
    mr.merge()
    assert project.issues.get(issue.iid).state == "closed"
    assert [e.state for e in mr.resourcestateevents.list()] == ["merged"]


def test_update_title_and_close(project, merge_request):
    mr = merge_request(unique("update"))
    mr.title = "Draft: renamed"
    mr.save()
    fetched = project.mergerequests.get(mr.iid)
    assert fetched.title == "Draft: renamed"
    assert fetched.draft is True
    mr.state_event = "close"
    mr.save()
    assert project.mergerequests.get(mr.iid).state == "closed"
    mr.state_event = "reopen"
    mr.save()
    assert project.mergerequests.get(mr.iid).state == "opened"


@pytest.fixture(scope="module")
def reviewer(gl, project, make_user):
    """A developer of the project and a client acting as them (sudo)."""
    person = make_user()
    project.members.create({"user_id": person.id, "access_level": AccessLevel.DEVELOPER})
    return person


def test_approve_and_unapprove(gl, project, merge_request, reviewer):
    mr = merge_request(unique("approve"))
    state = mr.approvals.get()
    assert state.approved_by == []
    as_reviewer = gl.projects.get(project.id, lazy=True).mergerequests.get(mr.iid, sudo=reviewer.username)
    approved = as_reviewer.approve(sudo=reviewer.username)
    assert [a["user"]["id"] for a in approved["approved_by"]] == [reviewer.id]
    assert [a["user"]["username"] for a in mr.approvals.get().approved_by] == [reviewer.username]
    # Approving twice is refused.
    with pytest.raises(gitlab.GitlabAuthenticationError) as error:
        as_reviewer.approve(sudo=reviewer.username)
    assert error.value.response_code == 401
    as_reviewer.unapprove(sudo=reviewer.username)
    assert mr.approvals.get().approved_by == []


def test_approval_rules_and_approvals_required(project, merge_request, reviewer):
    rule = project.approvalrules.create({"name": unique("rule"), "approvals_required": 1, "user_ids": [reviewer.id]})
    try:
        assert rule.approvals_required == 1
        assert [u["id"] for u in rule.eligible_approvers] == [reviewer.id]
        assert rule.id in [r.id for r in project.approvalrules.list()]
        mr = merge_request(unique("rules"))
        approvals = mr.approvals.get()
        assert approvals.approvals_required == 1
        assert approvals.approvals_left == 1
        assert approvals.approved is False
        # Not approved: the merge is refused.
        with pytest.raises(gitlab.GitlabMRClosedError) as error:
            mr.merge()
        assert error.value.response_code == 406
        state = mr.approval_state.get()
        assert [r["name"] for r in state.rules] == [rule.name]
        assert state.rules[0]["approved"] is False
        mr.approve(sudo=reviewer.username)
        assert mr.approvals.get().approvals_left == 0
        mr.merge()
        assert project.mergerequests.get(mr.iid).state == "merged"
    finally:
        rule.delete()


def test_merge_then_merge_again(project, merge_request):
    mr = merge_request(unique("merge"))
    mr.merge()
    assert mr.state == "merged"
    fetched = project.mergerequests.get(mr.iid)
    assert fetched.merged_at is not None
    assert fetched.merge_when_pipeline_succeeds is False
    assert fetched.merge_commit_sha == project.branches.get(project.default_branch).commit["id"]
    with pytest.raises(gitlab.GitlabMRClosedError) as error:
        mr.merge()
    assert error.value.response_code == 405


def test_merge_removes_the_source_branch(project, merge_request):
    mr = merge_request(unique("remove-source"))
    mr.merge(should_remove_source_branch=True)
    assert project.mergerequests.get(mr.iid).merged_at is not None
    with pytest.raises(gitlab.GitlabGetError) as error:
        project.branches.get(mr.source_branch)
    assert error.value.response_code == 404


def test_merge_with_a_large_commit_message(project, merge_request):
    mr = merge_request(unique("large-message"), remove_source_branch=True)
    message = "large_message\r\n" * 1_000
    assert len(message) > 10_000
    mr.merge(merge_commit_message=message, should_remove_source_branch=False)
    merged = project.mergerequests.get(mr.iid)
    assert merged.merged_at is not None
    # The request's `false` wins over the merge request's own remove_source_branch.
    assert project.branches.get(mr.source_branch).name == mr.source_branch
    commit = project.commits.get(merged.merge_commit_sha)
    assert commit.message.replace("\r\n", "\n").startswith("large_message\nlarge_message\n")
    assert len(commit.message) >= 13_000


def test_merge_when_pipeline_succeeds_and_cancel(project, merge_request):
    mr = merge_request(unique("mwps"))
    head = project.commits.get(mr.sha)
    # An external CI system reports a running pipeline on the head commit.
    head.statuses.create({"state": "running", "name": "external-ci", "ref": mr.source_branch})
    mr.merge(merge_when_pipeline_succeeds=True)
    fetched = project.mergerequests.get(mr.iid)
    assert fetched.merged_at is None
    assert fetched.state == "opened"
    assert fetched.merge_when_pipeline_succeeds is True
    assert fetched.head_pipeline["status"] == "running"

    assert fetched.cancel_merge_when_pipeline_succeeds() == {"status": "success"}
    assert project.mergerequests.get(mr.iid).merge_when_pipeline_succeeds is False
    # Nothing left to cancel: GitLab's service error, in a 201.
    assert fetched.cancel_merge_when_pipeline_succeeds() == {
        "status": "error",
        "message": "Can't cancel the automatic merge",
        "http_status": 406,
    }


def test_merge_when_pipeline_succeeds_merges_once_it_succeeds(project, merge_request):
    mr = merge_request(unique("mwps-success"))
    head = project.commits.get(mr.sha)
    head.statuses.create({"state": "running", "name": "external-ci", "ref": mr.source_branch})
    mr.merge(merge_when_pipeline_succeeds=True)
    assert project.mergerequests.get(mr.iid).merge_when_pipeline_succeeds is True
    head.statuses.create({"state": "success", "name": "external-ci", "ref": mr.source_branch})
    merged = wait_for(
        lambda: (lambda m: m if m.state == "merged" else None)(project.mergerequests.get(mr.iid)),
        "the automatic merge",
    )
    assert merged.merged_by["username"] == "root"


def test_merge_when_pipeline_succeeds_without_pipeline_is_refused(merge_request):
    mr = merge_request(unique("mwps-none"))
    with pytest.raises(gitlab.GitlabMRClosedError) as error:
        mr.merge(merge_when_pipeline_succeeds=True)
    assert error.value.response_code == 405


def test_rebase(project, merge_request):
    mr = merge_request(unique("rebase"))
    project.files.create(
        {"file_path": f"{unique('moved')}.txt", "branch": project.default_branch, "content": "x\n", "commit_message": "Move main"}
    )
    target_head = project.branches.get(project.default_branch).commit["id"]
    assert mr.rebase() == {"rebase_in_progress": False}
    rebased = project.mergerequests.get(mr.iid, include_rebase_in_progress=True)
    assert rebased.rebase_in_progress is False
    assert rebased.merge_error is None
    source_head = project.commits.get(project.branches.get(mr.source_branch).commit["id"])
    assert source_head.parent_ids == [target_head]
    assert source_head.title == f"Add {mr.source_branch}.txt"


def test_merge_ref(project, merge_request):
    mr = merge_request(unique("merge-ref"))
    result = mr.merge_ref()
    merge_commit = project.commits.get(result["commit_id"])
    assert merge_commit.parent_ids[1] == mr.sha


def test_merge_ref_of_a_conflicting_merge_request(project, merge_request):
    branch = unique("merge-ref-conflict")
    mr = merge_request(branch)
    project.files.create(
        {"file_path": f"{branch}.txt", "branch": project.default_branch, "content": "other content\n", "commit_message": "Conflict"}
    )
    with pytest.raises(gitlab.GitlabGetError) as error:
        mr.merge_ref()
    assert error.value.response_code == 400


def test_delete(project, merge_request):
    mr = merge_request(unique("delete"))
    project.mergerequests.delete(mr.iid)
    with pytest.raises(gitlab.GitlabGetError) as error:
        project.mergerequests.get(mr.iid)
    assert error.value.response_code == 404
