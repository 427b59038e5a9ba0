# MergeRequest.reset_approvals() through python-gitlab, after v3.12.0's
# test_merge_request_reset_approvals (tests/functional/api/test_merge_requests.py): a project bot
# (project access token with `api`) resets the approvals of a merge request it can see.
import datetime

import gitlab
import pytest

from support import unique


def test_merge_request_reset_approvals(gitlab_url, project, merge_request, make_user):
    mr = merge_request(unique("reset-approvals"))
    reviewer = make_user()
    project.members.create({"user_id": reviewer.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
    future_date = datetime.date.today() + datetime.timedelta(days=4)
    bot = project.access_tokens.create({"name": "bot", "scopes": ["api"], "expires_at": future_date.isoformat()})

    bot_gitlab = gitlab.Gitlab(gitlab_url, private_token=bot.token, timeout=30)
    bot_project = bot_gitlab.projects.get(project.id, lazy=True)

    # The reviewer approves through their own token.
    token = reviewer.impersonationtokens.create({"name": "review", "scopes": ["api"]})
    reviewer_gl = gitlab.Gitlab(gitlab_url, private_token=token.token, timeout=30)
    reviewer_gl.projects.get(project.id, lazy=True).mergerequests.get(mr.iid, lazy=True).approve()
    assert [a["user"]["id"] for a in mr.approvals.get().approved_by] == [reviewer.id]

    bot_mr = bot_project.mergerequests.list(iids=[mr.iid])[0]
    assert bot_mr.reset_approvals()
    assert mr.approvals.get().approved_by == []


def test_reset_approvals_is_for_bots(project, merge_request):
    mr = merge_request(unique("reset-by-user"))
    # A user, even the project's owner, is refused: only project and group bots reset approvals.
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError) as raised:
        mr.reset_approvals()
    assert raised.value.response_code == 401
