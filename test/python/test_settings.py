# Application settings through python-gitlab (GitLab's lib/api/settings.rb): read, update, and the
# throttle_* rate limit settings.
import gitlab
import pytest


@pytest.fixture
def settings(gl):
    """The current settings; the values a test changes are put back afterwards."""
    before = gl.settings.get()
    saved = dict(before.attributes)
    yield before
    restore = gl.settings.get()
    for name in (
        "default_projects_limit",
        "throttle_authenticated_api_enabled",
        "throttle_authenticated_api_requests_per_period",
        "throttle_authenticated_api_period_in_seconds",
        "throttle_unauthenticated_api_enabled",
        "throttle_unauthenticated_api_requests_per_period",
        "throttle_unauthenticated_api_period_in_seconds",
        "throttle_authenticated_web_enabled",
        "throttle_authenticated_web_requests_per_period",
        "throttle_authenticated_web_period_in_seconds",
    ):
        if name in saved:
            setattr(restore, name, saved[name])
    restore.save()


def test_settings_get(settings):
    assert isinstance(settings.default_projects_limit, int)
    assert isinstance(settings.signup_enabled, bool)
    assert settings.id == 1


def test_settings_update_default_projects_limit(gl, settings):
    settings.default_projects_limit = 42
    settings.save()
    assert gl.settings.get().default_projects_limit == 42
    settings.default_projects_limit = 43
    settings.save()
    assert settings.default_projects_limit == 43
    assert gl.settings.get().default_projects_limit == 43


def test_settings_update_throttle_settings(gl, settings):
    settings.throttle_authenticated_api_enabled = True
    settings.throttle_authenticated_api_requests_per_period = 100000
    settings.throttle_authenticated_api_period_in_seconds = 3600
    settings.throttle_unauthenticated_api_enabled = True
    settings.throttle_unauthenticated_api_requests_per_period = 50000
    settings.throttle_unauthenticated_api_period_in_seconds = 1800
    settings.save()

    fetched = gl.settings.get()
    assert fetched.throttle_authenticated_api_enabled is True
    assert fetched.throttle_authenticated_api_requests_per_period == 100000
    assert fetched.throttle_authenticated_api_period_in_seconds == 3600
    assert fetched.throttle_unauthenticated_api_enabled is True
    assert fetched.throttle_unauthenticated_api_requests_per_period == 50000
    assert fetched.throttle_unauthenticated_api_period_in_seconds == 1800

    fetched.throttle_authenticated_api_enabled = False
    fetched.throttle_unauthenticated_api_enabled = False
    fetched.save()
    again = gl.settings.get()
    assert again.throttle_authenticated_api_enabled is False
    assert again.throttle_unauthenticated_api_enabled is False
    # The limits stay as they were set.
    assert again.throttle_authenticated_api_requests_per_period == 100000


def test_settings_update_partial_keeps_the_rest(gl, settings):
    limit = settings.default_projects_limit
    gl.settings.update(new_data={"throttle_authenticated_web_period_in_seconds": 120})
    fetched = gl.settings.get()
    assert fetched.throttle_authenticated_web_period_in_seconds == 120
    assert fetched.default_projects_limit == limit


def test_authenticated_api_rate_limit(gl, settings, make_user):
    """Rack::Attack's authenticated API throttle, per user, with its `Retry later` answer."""
    person = make_user()
    token = person.impersonationtokens.create({"name": "rate-limited", "scopes": ["api"]}).token
    client = gitlab.Gitlab(gl.url, private_token=token, retry_transient_errors=False)
    settings.throttle_authenticated_api_enabled = True
    settings.throttle_authenticated_api_requests_per_period = 3
    # Windows start at multiples of the period since the epoch: a period past today's epoch second puts
    # every request of this test in one window (it ends in 2033), whatever the time of day.
    settings.throttle_authenticated_api_period_in_seconds = 2_000_000_000
    settings.save()
    try:
        for _ in range(3):
            assert client.users.get(person.id, obey_rate_limit=False).id == person.id
        with pytest.raises(gitlab.GitlabGetError) as error:
            client.users.get(person.id, obey_rate_limit=False)
        assert error.value.response_code == 429
        assert "Retry later" in str(error.value)
    finally:
        # Root's first request in the window: under the limit.
        settings.throttle_authenticated_api_enabled = False
        settings.save()
    assert client.users.get(person.id).id == person.id
