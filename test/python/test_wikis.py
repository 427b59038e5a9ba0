# Wikis through python-gitlab (GitLab's lib/api/wikis.rb): project and group wiki pages created,
# listed, read by slug, updated (a new title without a folder keeps the page's folder, as WikiPage's
# process_title does) and deleted.
import gitlab
import pytest

from support import unique


def exercise_wiki(wikis):
    title = unique("title")
    page = wikis.create({"title": f"{title}/subtitle", "content": "test content"})
    assert page.slug == f"{title}/subtitle"
    assert page.format == "markdown"

    listed = wikis.list(get_all=True)
    assert page.slug in [p.slug for p in listed]
    with_content = wikis.list(with_content=True, get_all=True)
    assert [p.content for p in with_content if p.slug == page.slug] == ["test content"]

    fetched = wikis.get(page.slug)
    assert fetched.content == "test content"
    assert fetched.title == "subtitle"

    fetched.content = "update content"
    fetched.title = f"{title}-renamed"
    fetched.save()
    assert fetched.slug == f"{title}/{title}-renamed"
    renamed = wikis.get(f"{title}/{title}-renamed")
    assert renamed.content == "update content"
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        wikis.get(page.slug)

    renamed.delete()
    assert renamed.slug not in [p.slug for p in wikis.list(get_all=True)]


def test_project_wiki(project):
    exercise_wiki(project.wikis)


def test_group_wiki(group):
    exercise_wiki(group.wikis)


def test_wiki_page_errors(project):
    with pytest.raises(gitlab.exceptions.GitlabGetError) as raised:
        project.wikis.get(unique("missing"))
    assert raised.value.response_code == 404
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as raised:
        project.wikis.create({"title": "", "content": "x"})
    assert raised.value.response_code == 400


def test_wiki_formats_and_render(project):
    title = unique("formats")
    page = project.wikis.create({"title": title, "content": "= Heading", "format": "asciidoc"})
    assert page.format == "asciidoc"
    markdown = project.wikis.create({"title": unique("md"), "content": "**bold**"})
    rendered = project.wikis.get(markdown.slug, render_html=True)
    assert "<strong>bold</strong>" in rendered.content
    page.delete()
    markdown.delete()
