"""posecode.toml loading and validation."""

from __future__ import annotations

import pytest

from posecode_ssg.config import ConfigError, load_config


def write(tmp_path, text: str):
    (tmp_path / "posecode.toml").write_text(text, encoding="utf-8")


def test_defaults_without_a_file(tmp_path):
    config = load_config(None, cwd=tmp_path)
    assert config.config_path is None
    assert config.content_dir == tmp_path / "content" and config.output_dir == tmp_path / "site"
    assert config.base_path == "/" and config.site_url == "" and config.default_view == "auto"


def test_values_and_subpath(tmp_path):
    (tmp_path / "over").mkdir()
    write(tmp_path, 'site_name = "Rehab"\nbase_url = "https://example.org/clinic/library"\n'
                    'content_dir = "pages"\noutput_dir = "public"\ntheme_dir = "over"\n'
                    'default_avatar = "avatar2"\ndefault_view = "front"\nstrict = true\n')
    config = load_config(None, cwd=tmp_path)
    assert config.site_name == "Rehab" and config.strict is True
    assert config.base_url == "https://example.org/clinic/library/"
    assert config.base_path == "/clinic/library/" and config.site_url == "https://example.org"
    assert config.content_dir == tmp_path / "pages" and config.output_dir == tmp_path / "public"
    assert config.theme_dir == tmp_path / "over" and config.default_avatar == "avatar2"


def test_every_problem_is_listed_with_its_line(tmp_path):
    write(tmp_path, 'site_name = "X"\nbase_ulr = "/a/"\nstrict = "yes"\ndefault_view = "top"\n'
                    'default_avatar = "avatar9"\ntheme = "fancy"\n')
    with pytest.raises(ConfigError) as info:
        load_config(None, cwd=tmp_path)
    problems = dict(info.value.problems)
    assert set(problems) == {2, 3, 4, 5, 6}
    assert "did you mean 'base_url'" in problems[2]
    assert "true or false" in problems[3]
    assert "auto, side, front" in problems[4]
    assert "avatar1" in problems[5]
    assert "unknown theme 'fancy'" in problems[6]
    assert str(info.value).startswith(f"{tmp_path / 'posecode.toml'}:2:1: error[config]:")


def test_invalid_toml_names_the_line(tmp_path):
    write(tmp_path, 'site_name = "X"\nbase_url = \n')
    with pytest.raises(ConfigError) as info:
        load_config(None, cwd=tmp_path)
    assert info.value.problems[0][0] == 2 and "invalid TOML" in info.value.problems[0][1]


@pytest.mark.parametrize("value, message", [
    ('"ftp://host/x/"', "scheme"), ('"relative/path"', "absolute URL"), ('"https://h/x/?q=1"', "query"),
])
def test_bad_base_url(tmp_path, value, message):
    write(tmp_path, f"base_url = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config(None, cwd=tmp_path)
    assert message in info.value.problems[0][1]


def test_output_inside_content_is_refused(tmp_path):
    write(tmp_path, 'content_dir = "content"\noutput_dir = "content/site"\n')
    with pytest.raises(ConfigError) as info:
        load_config(None, cwd=tmp_path)
    assert info.value.problems[0][0] == 2


def test_named_file_missing(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.toml")
