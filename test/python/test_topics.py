# Topics through python-gitlab (GitLab's lib/api/topics.rb): create (15.0+ needs a title), list,
# update, get, merge into another topic, delete; projects' topics follow.
import gitlab
import pytest

from support import unique


def test_topics(gl):
    name = unique("topic")
    topic = gl.topics.create({"name": name, "title": "My Topic", "description": "My Topic"})
    try:
        assert topic.name == name
        assert topic.total_projects_count == 0
        assert name in [t.name for t in gl.topics.list(search=name)]
        topic.description = "My Updated Topic"
        topic.save()
        assert gl.topics.get(topic.id).description == "My Updated Topic"
    finally:
        gl.topics.delete(topic.id)
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        gl.topics.get(topic.id)


def test_topic_without_title(gl):
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as raised:
        gl.topics.create({"name": unique("topic")})
    assert raised.value.response_code == 400


def test_merge_topics(gl):
    source_name, target_name = unique("source"), unique("target")
    project = gl.projects.create({"name": unique("pytopics"), "topics": [source_name]})
    target = gl.topics.create({"name": target_name, "title": "Target"})
    try:
        source = [t for t in gl.topics.list(search=source_name)][0]
        assert source.total_projects_count == 1
        merged = gl.topics.merge(source.id, target.id)
        assert merged["id"] == target.id
        assert merged["total_projects_count"] == 1
        assert gl.projects.get(project.id).topics == [target_name]
        assert gl.topics.list(search=source_name) == []
    finally:
        project.delete()
        gl.topics.delete(target.id)


def test_topic_avatar(gl, tmp_path):
    png = tmp_path / "avatar.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
    topic = gl.topics.create({"name": unique("avatar"), "title": "With avatar", "avatar": open(png, "rb")})
    try:
        assert topic.avatar_url.endswith("/avatar.png")
        topic.avatar = open(png, "rb")
        topic.save()
        assert gl.topics.get(topic.id).avatar_url
    finally:
        gl.topics.delete(topic.id)
