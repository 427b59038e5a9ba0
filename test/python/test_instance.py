# The instance and operations surface through python-gitlab (GitLab's lib/api/broadcast_messages.rb,
# features.rb, statistics.rb, project_statistics.rb, sidekiq_metrics.rb, users.rb activities,
# ee/lib/api/project_push_rule.rb and group_push_rule.rb), after python-gitlab 3.12's functional tests,
# with unique names instead of counts of whole collections.
import gitlab
import pytest

from support import unique


def test_broadcast_messages(gl):
    msg = gl.broadcastmessages.create({"message": unique("this is the message")})
    msg.color = "#444444"
    msg.save()
    msg_id = msg.id
    listed = [m for m in gl.broadcastmessages.list(all=True) if m.id == msg_id]
    assert listed and listed[0].color == "#444444"
    msg = gl.broadcastmessages.get(msg_id)
    assert msg.color == "#444444"
    assert msg.active is True
    msg.delete()
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        gl.broadcastmessages.get(msg_id)


def test_sidekiq_queue_metrics(gl):
    out = gl.sidekiq.queue_metrics()
    assert isinstance(out, dict)
    assert "edgeforge-webhooks" in out["queues"]


def test_sidekiq_process_metrics(gl):
    out = gl.sidekiq.process_metrics()
    assert isinstance(out, dict)
    assert "hostname" in out["processes"][0]


def test_sidekiq_job_stats(gl):
    out = gl.sidekiq.job_stats()
    assert isinstance(out, dict)
    assert "processed" in out["jobs"]


def test_sidekiq_compound_metrics(gl):
    out = gl.sidekiq.compound_metrics()
    assert isinstance(out, dict)
    assert "jobs" in out
    assert "processes" in out
    assert "queues" in out


def test_user_activities(gl):
    gl.auth()
    activities = gl.user_activities.list(query_parameters={"from": "2019-01-01"}, all=True)
    assert isinstance(activities, list)
    assert "root" in [a.username for a in activities]


def test_features(gl):
    name = unique("foo").replace("-", "_")
    feat = gl.features.set(name, 30)
    assert feat.name == name
    assert feat.state == "conditional"
    assert name in [f.name for f in gl.features.list()]
    feat.delete()
    assert name not in [f.name for f in gl.features.list()]


def test_statistics(gl):
    statistics = gl.statistics.get()
    assert isinstance(statistics.forks, str)
    assert int(statistics.users.replace(",", "")) >= 1


def test_project_statistics(project):
    stats = project.additionalstatistics.get()
    assert stats.fetches["total"] == 0
    assert stats.fetches["days"] == []


def test_project_push_rules(gl):
    project = gl.projects.create({"name": unique("pushrules")})
    try:
        push_rules = project.pushrules.create({"deny_delete_tag": True})
        assert push_rules.deny_delete_tag
        push_rules.deny_delete_tag = False
        push_rules.save()
        push_rules = project.pushrules.get()
        assert push_rules
        assert not push_rules.deny_delete_tag
        push_rules.delete()
    finally:
        project.delete()


def test_group_push_rules(group):
    push_rules = group.pushrules.create({"deny_delete_tag": True})
    assert push_rules.deny_delete_tag
    push_rules.deny_delete_tag = False
    push_rules.save()
    push_rules = group.pushrules.get()
    assert not push_rules.deny_delete_tag
    push_rules.delete()
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        group.pushrules.get()
